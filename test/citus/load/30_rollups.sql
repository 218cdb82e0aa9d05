-- Hourly and daily rollups of every profile, grouped by host (README).
SET client_min_messages = warning;
SELECT calltree.rollup('1 hour', '{host}');
SELECT calltree.rollup('1 day', '{host}');
