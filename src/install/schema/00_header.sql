-- calltree's install script, which CREATE EXTENSION calltree runs.  make
-- joins the pieces of src/install/ into it: first schema/ (types, tables,
-- indexes: made once), then functions/ (functions, aggregates and their
-- comments: replayed by every upgrade script), then bindings/ (triggers and
-- operators, which name functions: made once), each folder in the order of
-- its file names.  A piece comes after every piece whose objects it names.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit
