-- The deploys example: a table of deploys and the profiles of a toy JSON
-- API taken after each (examples/deploys/make_profiles.py wrote them).
-- Run it with psql from the folder that holds examples/:
--
--   \i examples/deploys/load.sql
--
-- It creates the table deploys (in the first schema of search_path) and
-- imports 24 profiles of the service api, eight after each of three
-- deploys: four hosts, two profiles each.  Commit 9b7d3a1 made parse_json
-- slower; c7e5d20 changed nothing the profiles can see.  A profile says
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
    ('api', '9b7d3a1', '2031-05-06 09:00+00'),
    ('api', 'c7e5d20', '2031-05-07 09:00+00');

-- one line per profile: host, start time, collapsed stacks
CREATE TEMP TABLE deploys_profiles (host text, started_at text, stacks text);
\copy deploys_profiles FROM 'examples/deploys/profiles.tsv'
CREATE TEMP TABLE deploys_imported AS
SELECT calltree.import_collapsed(v.stacks, v.host || ' ' || v.started_at,
                                 jsonb_build_object('service', 'api', 'host', v.host)) AS id,
       v.started_at::timestamptz AS started_at
  FROM deploys_profiles AS v;
UPDATE calltree.profile AS p SET started_at = i.started_at
  FROM deploys_imported AS i WHERE p.id = i.id;
DROP TABLE deploys_imported, deploys_profiles;
