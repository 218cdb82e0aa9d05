-- calltree 0.2: tables, interning, the calltree type and its aggregates.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit

