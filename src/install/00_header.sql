-- calltree 0.2, the install script of CREATE EXTENSION calltree.  The make
-- target calltree--0.2.sql builds it by joining the pieces of src/install/
-- in the order of their names, one concern each, every piece after those
-- whose objects it names: the tables and their triggers, interning, the
-- calltree type, aggregates, reading, transforms, analyses, importers,
-- symbolication and exporters.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit

