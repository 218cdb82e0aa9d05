-- calltree 0.2: the script that CREATE EXTENSION calltree runs.  make joins
-- the files of src/install/ into it in the order of their names, one
-- concern each: tables, integrity triggers, the intern cache, interning,
-- the calltree type, aggregates, reading, transforms, analyses, importers,
-- symbolication, exporters.  A file comes after every file whose objects
-- it names.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit

