-- The BOM demo dataset again, in Odoo MRP's own tables and columns (schema odoo_demo), for the BOM
-- flow on a mapped schema: `BOM_DATASET=odoo_demo BOM_SCHEMA_MAPPING=data/odoo/mapping.json`, and
-- `npm run eval -- --set dev bom --schema odoo`, which asks the same questions of both shapes.
--
-- Generated from bom_demo (010_bom.sql runs first), so both hold the same parts, BOMs and lines:
--   res_partner        the manufacturers (and the firm itself, "In-house")
--   product_category   one row per category value
--   product_template   one per item: id is Odoo's own number, default_code the item number,
--                      sale_ok ("Can be Sold") marks the finished goods, manufacturer the maker
--                      (a partner, as the OCA module product_manufacturer adds it)
--   product_product    one variant per template, with ids of their own (lines name variants)
--   mrp_bom            per parent, its current BOM (active) and, where the demo has inactive
--                      lines, an archived older revision holding them (Odoo has no per-line flag)
--   mrp_bom_line       the lines, each on the BOM of its revision
CREATE SCHEMA IF NOT EXISTS odoo_demo;

CREATE OR REPLACE TABLE odoo_demo.res_partner AS
SELECT CAST(row_number() OVER (ORDER BY manufacturer) AS INTEGER) AS id, manufacturer AS name, TRUE AS is_company
FROM (SELECT DISTINCT manufacturer FROM bom_demo.item_master WHERE manufacturer IS NOT NULL);

CREATE OR REPLACE TABLE odoo_demo.product_category AS
SELECT CAST(row_number() OVER (ORDER BY category) AS INTEGER) AS id, category AS name,
       'All / ' || category AS complete_name, CAST(NULL AS INTEGER) AS parent_id
FROM (SELECT DISTINCT category FROM bom_demo.item_master);

CREATE OR REPLACE TABLE odoo_demo.product_template AS
SELECT CAST(1000 + row_number() OVER (ORDER BY im.item_number) AS INTEGER) AS id,
       im.item_description AS name,
       c.id AS categ_id,
       'product' AS type,
       im.item_type = 'FINISHED_GOOD' AS sale_ok,
       im.item_type = 'COMPONENT' AS purchase_ok,
       TRUE AS active,
       im.item_number AS default_code,
       p.id AS manufacturer
FROM bom_demo.item_master im
JOIN odoo_demo.product_category c ON c.name = im.category
LEFT JOIN odoo_demo.res_partner p ON p.name = im.manufacturer;

CREATE OR REPLACE TABLE odoo_demo.product_product AS
SELECT id + 500000 AS id, id AS product_tmpl_id, default_code, active FROM odoo_demo.product_template;

-- Current BOMs get ids 1.., archived revisions 100000..; both belong to the parent's template.
CREATE OR REPLACE TABLE odoo_demo.mrp_bom AS
WITH parents AS (
  SELECT t.id AS product_tmpl_id,
         CAST(row_number() OVER (ORDER BY t.id) AS INTEGER) AS n,
         bool_or(NOT bd.is_active) AS has_inactive
  FROM bom_demo.bom_details bd
  JOIN odoo_demo.product_template t ON t.default_code = bd.parent_item_number
  GROUP BY t.id
)
SELECT n AS id, product_tmpl_id, CAST(NULL AS INTEGER) AS product_id, 1.0 AS product_qty,
       'normal' AS type, TRUE AS active
FROM parents
UNION ALL
SELECT 100000 + n, product_tmpl_id, NULL, 1.0, 'normal', FALSE
FROM parents WHERE has_inactive;

CREATE OR REPLACE TABLE odoo_demo.mrp_bom_line AS
SELECT CAST(row_number() OVER (ORDER BY bd.parent_item_number, bd.find_number, bd.component_item_number) AS INTEGER) AS id,
       b.id AS bom_id,
       comp.id + 500000 AS product_id,
       bd.quantity AS product_qty,
       1 AS product_uom_id,
       bd.find_number AS sequence
FROM bom_demo.bom_details bd
JOIN odoo_demo.product_template par ON par.default_code = bd.parent_item_number
JOIN odoo_demo.product_template comp ON comp.default_code = bd.component_item_number
JOIN odoo_demo.mrp_bom b ON b.product_tmpl_id = par.id AND b.active = bd.is_active;
