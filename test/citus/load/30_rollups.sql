-- Hourly and daily rollups of every profile, grouped by host (README.md, docs/cookbook.md).
SET client_min_messages = warning;
SELECT calltree.rollup('1 hour', '{host}');
SELECT calltree.rollup('1 day', '{host}');
