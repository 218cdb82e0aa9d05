-- calltree 0.1: tables, interning, the calltree type and its aggregates.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit

