-- The BOM demo dataset (schema bom_demo) for the answerBomQuestion flow: a small electronics
-- manufacturer with ~3,400 purchased components, 400 subassemblies, 200 finished goods, ~9,000
-- BOM lines, plus two distractor tables the resolver must leave alone.
--
-- Everything is generated here, deterministically (integer arithmetic on range(), no random(),
-- no hash()), so the file stays small and every run (DuckDB here, BigQuery via
-- data/bigquery/load-bom.ts) holds the same rows. The vocabulary is chosen so real questions
-- exercise every strategy of the refinement loop (docs/bom.md lists them):
--   exact       "capacitor", "sensor", "led", "fastener"     = a category value (CAPACITOR, ...)
--   plural regex "battery", "memory", "connector", "screws"   only as a word (BATTERIES, MEMORY IC,
--                                                                CONNECTORS, "Machine screw ...")
--   substring   "fuse"                                        only inside words (eFuse, polyfuse)
--   no answer   "hydraulic valves"                            nowhere in the BOM tables
CREATE SCHEMA IF NOT EXISTS bom_demo;

-- Component categories: id, name, how many parts, first part index (running sum of sizes).
CREATE OR REPLACE TEMP TABLE bom_seed_categories AS
SELECT cat_id, category, size, CAST(SUM(size) OVER (ORDER BY cat_id) - size AS INTEGER) AS first_index, designator
FROM (VALUES
  (0, 'BATTERIES', 120, 'BT'), (1, 'MEMORY IC', 150, 'U'), (2, 'CAPACITOR', 500, 'C'),
  (3, 'RESISTOR', 450, 'R'), (4, 'CONNECTORS', 300, 'J'), (5, 'SENSOR', 200, 'U'),
  (6, 'MICROCONTROLLER', 150, 'U'), (7, 'DISPLAY', 100, 'DS'), (8, 'CIRCUIT_PROTECTION', 120, 'F'),
  (9, 'FASTENER', 250, 'H'), (10, 'ENCLOSURE', 80, 'ENC'), (11, 'CABLE_ASSEMBLY', 120, 'W'),
  (12, 'LED', 200, 'D'), (13, 'OSCILLATOR', 120, 'Y'), (14, 'INDUCTOR', 180, 'L'),
  (15, 'ANTENNA', 80, 'E'), (16, 'POWER_IC', 200, 'U'), (17, 'MOTOR', 80, 'M')
) AS t(cat_id, category, size, designator);

-- Description templates per category: a base phrase and the specs it comes in.
CREATE OR REPLACE TEMP TABLE bom_seed_templates AS
SELECT cat_id, tpl_id, base, specs, COUNT(*) OVER (PARTITION BY cat_id) AS n_tpl
FROM (VALUES
  (0, 0, 'Li-ion battery pack', ['1S 3.7V 2000mAh', '2S 7.4V 2200mAh', '3S 11.1V 3000mAh', '4S 14.8V 5200mAh']),
  (0, 1, 'Coin cell battery', ['CR2032 3V', 'CR2450 3V', 'CR1220 3V']),
  (0, 2, 'LiFePO4 battery module', ['12.8V 6Ah', '12.8V 20Ah', '25.6V 50Ah']),
  (0, 3, 'NiMH battery pack', ['4.8V 1300mAh', '7.2V 2000mAh']),
  (1, 0, 'DDR4 SDRAM', ['4Gb x16', '8Gb x8', '16Gb x16']),
  (1, 1, 'NOR flash memory', ['64Mb SPI', '128Mb QSPI', '256Mb QSPI']),
  (1, 2, 'EEPROM', ['32Kb I2C', '256Kb I2C', '1Mb SPI']),
  (1, 3, 'LPDDR4X memory', ['16Gb', '32Gb']),
  (2, 0, 'Ceramic capacitor', ['100nF 50V X7R 0402', '1uF 25V X5R 0603', '10uF 16V X5R 0805', '4.7nF 100V C0G 0603']),
  (2, 1, 'Electrolytic capacitor', ['100uF 35V', '470uF 16V', '1000uF 25V']),
  (2, 2, 'Tantalum capacitor', ['22uF 10V', '47uF 6.3V']),
  (3, 0, 'Thick film resistor', ['10k 1% 0402', '4.7k 1% 0603', '100R 5% 0805', '1M 1% 0402']),
  (3, 1, 'Current sense resistor', ['10mR 1% 2512', '50mR 1% 1206']),
  (3, 2, 'NTC thermistor', ['10k 3950 0603', '100k 0402']),
  (4, 0, 'USB-C receptacle', ['16-pin SMT', '24-pin mid-mount']),
  (4, 1, 'Board-to-board header', ['2x10 2.54mm', '2x20 1.27mm', '1x6 2.54mm']),
  (4, 2, 'Battery holder', ['AA 2-cell', 'CR2032 SMT']),
  (4, 3, 'JST PH wire-to-board', ['2-pin', '4-pin', '6-pin']),
  (5, 0, 'Temperature and humidity sensor', ['I2C 2%', 'I2C 3%']),
  (5, 1, '3-axis accelerometer', ['16g SPI', '8g I2C']),
  (5, 2, 'Ambient light sensor', ['I2C 16-bit']),
  (5, 3, 'Hall effect sensor', ['unipolar SOT-23', 'bipolar TO-92']),
  (6, 0, 'ARM Cortex-M4 MCU', ['512KB flash LQFP64', '1MB flash LQFP100']),
  (6, 1, 'ARM Cortex-M0+ MCU', ['64KB flash QFN32', '128KB flash QFN48']),
  (6, 2, 'RISC-V wireless SoC', ['BLE 5.3 QFN40', 'Wi-Fi 6 QFN56']),
  (7, 0, 'TFT LCD module', ['2.4in 240x320 SPI', '3.5in 320x480 RGB', '7in 800x480 LVDS']),
  (7, 1, 'OLED display', ['0.96in 128x64 I2C', '1.3in 128x64 SPI']),
  (7, 2, 'E-paper panel', ['2.9in 296x128', '4.2in 400x300']),
  (8, 0, 'eFuse load switch', ['3A 5.5V', '5A 12V']),
  (8, 1, 'PTC polyfuse', ['500mA 1206', '1.1A 1812', '2A radial']),
  (8, 2, 'TVS diode', ['5V SOD-323', '24V SMB']),
  (8, 3, 'Thermal cutoff', ['72C axial', '98C axial']),
  (9, 0, 'Machine screw', ['M2x6 stainless', 'M3x8 stainless', 'M4x10 zinc']),
  (9, 1, 'Hex nut', ['M3 stainless', 'M4 zinc']),
  (9, 2, 'Standoff', ['M3x10 brass', 'M3x20 nylon']),
  (9, 3, 'Blind rivet', ['3.2mm aluminium']),
  (10, 0, 'ABS enclosure', ['120x80x40mm', '200x120x60mm']),
  (10, 1, 'Aluminium extrusion housing', ['100mm', '160mm']),
  (10, 2, 'Front panel overlay', ['polycarbonate', 'polyester']),
  (11, 0, 'USB-C cable assembly', ['0.5m', '1m']),
  (11, 1, 'Ribbon cable assembly', ['10-way 150mm', '20-way 300mm']),
  (11, 2, 'Power harness', ['18AWG 2-wire 500mm']),
  (12, 0, 'Indicator LED', ['0603 red', '0603 green', '0805 blue']),
  (12, 1, 'High-power LED', ['3W white', '1W warm white']),
  (12, 2, 'RGB LED', ['5050 addressable']),
  (13, 0, 'Crystal', ['32.768kHz 12.5pF', '25MHz 18pF', '8MHz HC-49']),
  (13, 1, 'MEMS oscillator', ['24MHz 1.8V', '48MHz 3.3V']),
  (14, 0, 'Power inductor', ['4.7uH 3A', '10uH 2A', '22uH 1.5A']),
  (14, 1, 'Common mode choke', ['100uH 1A']),
  (15, 0, 'Chip antenna', ['2.4GHz', '868MHz']),
  (15, 1, 'LTE flex antenna', ['698-2690MHz']),
  (16, 0, 'Buck converter', ['3A 17V', '1A 36V']),
  (16, 1, 'LDO regulator', ['3.3V 500mA', '1.8V 300mA']),
  (16, 2, 'Battery charger IC', ['1-cell Li-ion 1A', '2-cell 2A']),
  (16, 3, 'PMIC', ['4-rail']),
  (17, 0, 'Brushless DC motor', ['24V 100W', '12V 30W']),
  (17, 1, 'Stepper motor', ['NEMA17 1.5A']),
  (17, 2, 'Vibration motor', ['coin 3V'])
) AS t(cat_id, tpl_id, base, specs);

CREATE OR REPLACE TEMP TABLE bom_seed_products AS
SELECT * FROM (VALUES
  (0, 'Smart Thermostat'), (1, 'Handheld Scanner'), (2, 'Wireless Router'), (3, 'E-Bike Controller'),
  (4, 'Infusion Pump'), (5, 'Drone Flight Controller'), (6, 'Industrial Gateway'), (7, 'Solar Charge Controller'),
  (8, 'Smart Lock'), (9, 'Fitness Tracker'), (10, 'Portable Speaker'), (11, 'Air Quality Monitor'),
  (12, 'Robot Vacuum'), (13, 'Label Printer'), (14, 'Point-of-Sale Terminal'), (15, 'Security Camera'),
  (16, 'Smart Plug'), (17, 'Electric Toothbrush'), (18, 'Baby Monitor'), (19, 'GPS Tracker'),
  (20, 'Irrigation Controller'), (21, 'Power Bank'), (22, 'Digital Multimeter'), (23, 'Hearing Aid Charger'),
  (24, 'Ultrasonic Flow Meter')
) AS t(p, product);

-- Subassembly types and the component categories their BOM lines draw from, in line order.
CREATE OR REPLACE TEMP TABLE bom_seed_sa_types AS
SELECT * FROM (VALUES
  (0, 'Main controller board', [6, 1, 13, 2, 3, 2, 3, 4, 12, 2]),
  (1, 'Power supply board', [16, 14, 2, 3, 8, 2, 4, 3]),
  (2, 'Battery module', [0, 8, 3, 4, 16, 2]),
  (3, 'Display module', [7, 12, 2, 4, 3]),
  (4, 'Sensor board', [5, 2, 3, 6, 4, 5]),
  (5, 'Wireless module', [15, 6, 13, 2, 1, 3]),
  (6, 'Motor drive board', [17, 16, 2, 3, 8, 4]),
  (7, 'Mechanical kit', [10, 9, 11, 9])
) AS t(t, sa_type, profile);

CREATE OR REPLACE TABLE bom_demo.item_master AS
WITH components AS (
  SELECT c.cat_id, c.category, c.first_index + r.r AS idx, r.r AS r
  FROM bom_seed_categories c, LATERAL (SELECT range AS r FROM range(c.size)) r
)
SELECT
  'CMP-' || lpad(CAST(idx + 1 AS VARCHAR), 6, '0') AS item_number,
  tp.base || ' ' || tp.specs[1 + CAST((r // tp.n_tpl) % len(tp.specs) AS INTEGER)] AS item_description,
  x.category,
  'COMPONENT' AS item_type,
  CASE WHEN x.category = 'FASTENER' THEN 'PCS' ELSE 'EA' END AS uom,
  CASE WHEN (idx * 37) % 100 < 6 THEN 'OBSOLETE' WHEN (idx * 37) % 100 < 15 THEN 'NRND' ELSE 'ACTIVE' END AS lifecycle_status,
  ['Kestrel Electronics', 'Northwind Components', 'Apex Semiconductor', 'Borealis Passives', 'Meridian Power',
   'Orion Interconnect', 'Tessera Devices', 'Lumen Optoelectronics', 'Halcyon Mechanical', 'Vantage Micro'][1 + (idx * 7 + x.cat_id * 3) % 10] AS manufacturer,
  ROUND(0.02 + ((idx * 7919) % 5000) / 100.0, 2) AS unit_cost,
  CAST(7 + (idx * 13) % 60 AS INTEGER) AS lead_time_days,
  DATE '2019-01-01' + CAST((idx * 17) % 2000 AS INTEGER) AS created_date
FROM components x
JOIN bom_seed_templates tp ON tp.cat_id = x.cat_id AND tp.tpl_id = x.r % tp.n_tpl
UNION ALL
SELECT
  'SA-' || CAST(2001 + j AS VARCHAR),
  s.sa_type || ' for ' || p.product || CASE WHEN j // 200 = 1 THEN ', rev B' ELSE '' END,
  'SUBASSEMBLY', 'SUBASSEMBLY', 'EA', 'ACTIVE', 'In-house', NULL,
  CAST(10 + j % 20 AS INTEGER), DATE '2021-01-01' + CAST((j * 3) % 900 AS INTEGER)
FROM (SELECT range AS j FROM range(400)) js
JOIN bom_seed_sa_types s ON s.t = j % 8
JOIN bom_seed_products p ON p.p = (j // 8) % 25
UNION ALL
SELECT
  'FG-' || CAST(1001 + i AS VARCHAR),
  p.product || ' ' || ['Gen 1', 'Gen 2', 'Gen 3', 'Pro', 'Lite', 'Max', 'Mini', 'Plus'][1 + (i // 25) % 8],
  'PRODUCT', 'FINISHED_GOOD', 'EA', CASE WHEN i % 17 = 0 THEN 'NRND' ELSE 'ACTIVE' END, 'In-house', NULL,
  CAST(20 + i % 30 AS INTEGER), DATE '2022-01-01' + CAST((i * 5) % 800 AS INTEGER)
FROM (SELECT range AS i FROM range(200)) fs
JOIN bom_seed_products p ON p.p = i % 25;

CREATE OR REPLACE TABLE bom_demo.bom_details AS
WITH sa_lines AS (
  -- Each subassembly has 12..20 lines; line k draws from its type's profile, part chosen by arithmetic.
  SELECT j, k, s.profile[1 + k % len(s.profile)] AS cat_id
  FROM (SELECT range AS j FROM range(400)) js
  JOIN bom_seed_sa_types s ON s.t = j % 8,
  LATERAL (SELECT range AS k FROM range(12 + (j * 7) % 9)) ks
),
fg_children AS (
  -- Finished good i uses the subassemblies of its product line and variant, by type.
  SELECT i, t.t, row_number() OVER (PARTITION BY i ORDER BY t.t) - 1 AS k
  FROM (SELECT range AS i FROM range(200)) fs, (SELECT range AS t FROM range(8)) t
  WHERE t.t IN (0, 1, 7)
     OR (t.t = 2 AND i % 3 <> 0)
     OR (t.t = 3 AND i % 4 IN (0, 1))
     OR (t.t = 4 AND i % 5 < 3)
     OR (t.t = 5 AND i % 2 = 0)
     OR (t.t = 6 AND i % 25 IN (3, 5, 12, 17, 20))
)
SELECT
  'SA-' || CAST(2001 + l.j AS VARCHAR) AS parent_item_number,
  -- A prime modulus mixes the picks, so every description of a category shows up on some BOM.
  'CMP-' || lpad(CAST(c.first_index + ((l.j * 7919 + l.k * 6271 + l.j * l.k * 131 + 17) % 10007) % c.size + 1 AS VARCHAR), 6, '0') AS component_item_number,
  CAST((l.k + 1) * 10 AS INTEGER) AS find_number,
  CAST(CASE WHEN c.category IN ('CAPACITOR', 'RESISTOR') THEN 1 + (l.j + l.k) % 8 WHEN c.category = 'FASTENER' THEN 4 ELSE 1 END AS DOUBLE) AS quantity,
  c.designator || CAST(l.k + 1 AS VARCHAR) AS reference_designator,
  CASE WHEN l.j // 200 = 1 THEN 'B' ELSE 'A' END AS bom_revision,
  (l.j * 31 + l.k * 17) % 25 <> 0 AS is_active,
  DATE '2022-01-01' + CAST((l.j * 11 + l.k) % 700 AS INTEGER) AS effective_date
FROM sa_lines l
JOIN bom_seed_categories c ON c.cat_id = l.cat_id
UNION ALL
SELECT
  'FG-' || CAST(1001 + f.i AS VARCHAR),
  'SA-' || CAST(2001 + f.t + 8 * (f.i % 25) + 200 * ((f.i // 25) % 2) AS VARCHAR),
  CAST((f.k + 1) * 10 AS INTEGER), 1.0, 'A' || CAST(f.k + 1 AS VARCHAR),
  'A', TRUE, DATE '2023-01-01' + CAST(f.i % 300 AS INTEGER)
FROM fg_children f
UNION ALL
-- Finished goods also take a few purchased parts directly: screws and a cable assembly.
SELECT
  'FG-' || CAST(1001 + i AS VARCHAR),
  'CMP-' || lpad(CAST(c.first_index + (i * 53 + c.cat_id * 7) % c.size + 1 AS VARCHAR), 6, '0'),
  CAST(900 + c.cat_id AS INTEGER), CASE WHEN c.category = 'FASTENER' THEN 8.0 ELSE 1.0 END, c.designator || '90',
  'A', i % 40 <> 7, DATE '2023-01-01' + CAST(i % 300 AS INTEGER)
FROM (SELECT range AS i FROM range(200)) fs
JOIN bom_seed_categories c ON c.cat_id IN (9, 11);

-- Distractor 1: supplier offers. Its names mention batteries, fuses and hydraulics, but it is not
-- part of a BOM: the resolver must not search it for BOM questions.
CREATE OR REPLACE TABLE bom_demo.supplier_catalog AS
SELECT
  'SUP-' || lpad(CAST(1 + (idx * 7) % 12 AS VARCHAR), 3, '0') AS supplier_id,
  ['Volta Battery Supply Co', 'MemTek Distribution', 'FuseWorks Ltd', 'Northwind Components', 'Pacific Passives',
   'Harbor Hydraulics and Valves', 'Sierra Sensors Direct', 'Quantum Connectors', 'Atlas Fastening', 'Brightline LEDs',
   'Keystone Cables', 'Polaris Power Devices'][1 + (idx * 7) % 12] AS supplier_name,
  'CMP-' || lpad(CAST(idx + 1 AS VARCHAR), 6, '0') AS item_number,
  'SP' || CAST(100000 + (idx * 7919) % 900000 AS VARCHAR) AS supplier_part_number,
  ['US', 'DE', 'TW', 'CN', 'JP', 'MX'][1 + idx % 6] AS country,
  ROUND(0.02 + ((idx * 6271) % 5000) / 100.0, 2) AS unit_price,
  CAST([1, 10, 100, 1000][1 + idx % 4] AS INTEGER) AS minimum_order_quantity
FROM (SELECT range AS idx FROM range(3400)) x
WHERE idx % 3 = 0;

-- Distractor 2: engineering change orders: free text full of component words, again not a BOM.
CREATE OR REPLACE TABLE bom_demo.engineering_change_orders AS
SELECT
  'ECO-' || lpad(CAST(n + 1 AS VARCHAR), 4, '0') AS eco_number,
  ['Replace', 'Qualify second source for', 'Change footprint of', 'Obsolete'][1 + n % 4] || ' ' || im.item_description AS title,
  'Affected part ' || im.item_number || ' (' || im.category || '): ' ||
    ['supplier end-of-life notice', 'field failures of hydraulic test rig', 'cost reduction', 'lead time above 12 weeks'][1 + (n // 4) % 4] AS description,
  ['OPEN', 'APPROVED', 'CLOSED'][1 + n % 3] AS status,
  im.item_number AS affected_item_number,
  DATE '2023-06-01' + CAST(n % 500 AS INTEGER) AS created_date
FROM (SELECT range AS n FROM range(300)) ns
JOIN bom_demo.item_master im ON im.item_number = 'CMP-' || lpad(CAST(1 + (n * 113) % 3400 AS VARCHAR), 6, '0');

DROP TABLE bom_seed_categories;
DROP TABLE bom_seed_templates;
DROP TABLE bom_seed_products;
DROP TABLE bom_seed_sa_types;
