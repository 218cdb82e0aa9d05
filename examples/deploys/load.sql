-- The deploys example: a table of deploys and the profiles of a toy JSON
-- API taken after each (examples/deploys/make_profiles.py wrote them).
-- Run it with psql from the folder that holds examples/:
--
--   \i examples/deploys/load.sql
--
-- It creates the table deploys (in the first schema of search_path) and
-- imports four profiles, two hosts after each of two deploys of the
-- service api; commit 9b7d3a1 made parse_json slower.  A profile says
-- nothing of its deploy: its service (profile.meta) and the time it
-- started (profile.started_at) tie it to the deploy that was live then.
CREATE TABLE deploys (
    service     text NOT NULL,
    commit      text NOT NULL,
    deployed_at timestamptz NOT NULL,
    PRIMARY KEY (service, deployed_at)
);
INSERT INTO deploys VALUES
    ('api', '4f1c2e0', '2031-05-05 09:00+00'),
    ('api', '9b7d3a1', '2031-05-06 09:00+00');

\set api_1_old `cat examples/deploys/api-1.4f1c2e0.collapsed`
\set api_2_old `cat examples/deploys/api-2.4f1c2e0.collapsed`
\set api_1_new `cat examples/deploys/api-1.9b7d3a1.collapsed`
\set api_2_new `cat examples/deploys/api-2.9b7d3a1.collapsed`
CREATE TEMP TABLE deploys_imported AS
SELECT calltree.import_collapsed(v.stacks, v.host || ' ' || v.started_at,
                                 jsonb_build_object('service', 'api', 'host', v.host)) AS id,
       v.started_at::timestamptz AS started_at
  FROM (VALUES (:'api_1_old', 'api-1', '2031-05-05 14:00+00'),
               (:'api_2_old', 'api-2', '2031-05-05 14:05+00'),
               (:'api_1_new', 'api-1', '2031-05-06 14:00+00'),
               (:'api_2_new', 'api-2', '2031-05-06 14:05+00')) AS v(stacks, host, started_at);
UPDATE calltree.profile AS p SET started_at = i.started_at
  FROM deploys_imported AS i WHERE p.id = i.id;
DROP TABLE deploys_imported;
\unset api_1_old
\unset api_2_old
\unset api_1_new
\unset api_2_new
