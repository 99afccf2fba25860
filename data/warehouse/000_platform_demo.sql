-- The platform check's table: a handful of components, enough to prove the warehouse path.
CREATE SCHEMA IF NOT EXISTS platform_demo;
CREATE OR REPLACE TABLE platform_demo.components (
  part_number VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  category VARCHAR NOT NULL
);
INSERT INTO platform_demo.components VALUES
  ('PD-1001', 'Lithium battery pack 4S', 'power'),
  ('PD-1002', 'Coin cell battery CR2032', 'power'),
  ('PD-1003', 'DDR4 memory module 8 GB', 'memory'),
  ('PD-1004', 'NOR flash memory 128 Mb', 'memory'),
  ('PD-1005', 'Aluminium enclosure', 'mechanical'),
  ('PD-1006', 'Battery holder AA', 'power'),
  ('PD-1007', 'USB-C connector', 'interconnect');
