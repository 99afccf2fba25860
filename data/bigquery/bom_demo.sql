-- BigQuery DDL of the BOM demo dataset: the same tables and columns as data/warehouse/010_bom.sql
-- builds in DuckDB. data/bigquery/load-bom.ts substitutes {{project}}, {{dataset}} (BOM_DATASET)
-- and {{location}} (BIGQUERY_LOCATION), runs these statements one by one, then loads the rows the
-- DuckDB script generated (newline-delimited JSON load jobs).
CREATE SCHEMA IF NOT EXISTS `{{project}}.{{dataset}}` OPTIONS (location = '{{location}}', description = 'agent-flows BOM demo (answerBomQuestion)');

CREATE OR REPLACE TABLE `{{project}}.{{dataset}}.item_master` (
  item_number STRING NOT NULL OPTIONS (description = 'Part number: CMP-000123 components, SA-2001 subassemblies, FG-1001 finished goods'),
  item_description STRING OPTIONS (description = 'Free-text description: kind of part, technology, key specs'),
  category STRING OPTIONS (description = 'Component family, upper case (BATTERIES, MEMORY IC, CAPACITOR, ...)'),
  item_type STRING OPTIONS (description = 'COMPONENT, SUBASSEMBLY or FINISHED_GOOD'),
  uom STRING,
  lifecycle_status STRING OPTIONS (description = 'ACTIVE, NRND or OBSOLETE'),
  manufacturer STRING,
  unit_cost FLOAT64,
  lead_time_days INT64,
  created_date DATE
);

CREATE OR REPLACE TABLE `{{project}}.{{dataset}}.bom_details` (
  parent_item_number STRING NOT NULL OPTIONS (description = 'The BOM (assembly) the line belongs to'),
  component_item_number STRING NOT NULL OPTIONS (description = 'The item used on the line'),
  find_number INT64,
  quantity FLOAT64,
  reference_designator STRING,
  bom_revision STRING,
  is_active BOOL OPTIONS (description = 'Only TRUE lines are current'),
  effective_date DATE
);

CREATE OR REPLACE TABLE `{{project}}.{{dataset}}.supplier_catalog` (
  supplier_id STRING,
  supplier_name STRING,
  item_number STRING,
  supplier_part_number STRING,
  country STRING,
  unit_price FLOAT64,
  minimum_order_quantity INT64
);

CREATE OR REPLACE TABLE `{{project}}.{{dataset}}.engineering_change_orders` (
  eco_number STRING,
  title STRING,
  description STRING,
  status STRING,
  affected_item_number STRING,
  created_date DATE
);
