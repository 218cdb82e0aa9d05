-- Interning: the same key always gives the same id; NULL is a value.
SET search_path = calltree, public;

SELECT intern_func('parse_json') = intern_func('parse_json') AS same_func,
       intern_func('parse_json') <> intern_func('parse_json', 'json.c') AS file_matters,
       intern_func('parse_json', 'json.c') = intern_func('parse_json', 'json.c') AS null_resource_matches,
       intern_func('parse_json', 'json.c', 'libjson.so') <> intern_func('parse_json', 'json.c') AS resource_matters;

SELECT intern_frame(intern_func('f')) = intern_frame(intern_func('f')) AS same_frame,
       intern_frame(intern_func('f'), 16) <> intern_frame(intern_func('f'), 17) AS address_matters,
       intern_frame(intern_func('f'), 16, 3, 4, 'jit') = intern_frame(intern_func('f'), 16, 3, 4, 'jit') AS full_key;

-- a stack is (prefix, frame); intern_stack(names) builds one frame per name
SELECT intern_stack(ARRAY['a','b','c']) AS abc, intern_stack(ARRAY['a','b']) AS ab \gset
SELECT intern_stack(ARRAY['a','b','c']) = :abc AS same_stack,
       (SELECT prefix_id FROM stack WHERE id = :abc) = :ab AS prefix_shared,
       :abc > :ab AS prefix_is_smaller,
       (SELECT frame_id FROM stack WHERE id = :abc) = intern_frame(intern_func('c')) AS leaf_frame,
       intern_stack('{}'::text[]) IS NULL AS empty_is_null;

-- stack_path: func ids, root first
SELECT stack_path(intern_stack(ARRAY['a','b','c'])) = ARRAY[intern_func('a'), intern_func('b'), intern_func('c')]
       AS path_of_funcs;

-- rows are not duplicated by repeated interning
SELECT count(*) AS funcs_named_a FROM func WHERE name = 'a' AND file IS NULL AND resource IS NULL;
SELECT count(*) AS stacks_a_b_c FROM stack WHERE id = (SELECT intern_stack(ARRAY['a','b','c']));

-- deleting a profile deletes its samples; interned rows stay shared
INSERT INTO profile (name) VALUES ('short-lived') RETURNING id AS short_profile \gset
INSERT INTO sample (profile_id, stack_id) VALUES (:short_profile, intern_stack(ARRAY['a','b','c']));
DELETE FROM profile WHERE id = :short_profile;
SELECT count(*) AS orphan_samples FROM sample WHERE profile_id = :short_profile;
SELECT count(*) > 0 AS stack_kept FROM stack WHERE id = (SELECT intern_stack(ARRAY['a','b','c']));

-- the tables are marked for pg_dump
SELECT c.relname
  FROM pg_extension e, unnest(e.extconfig) AS cfg(oid) JOIN pg_class c ON c.oid = cfg.oid
 WHERE e.extname = 'calltree' ORDER BY c.relname;
