-- 012_ensembles (PostgreSQL): mirrors sql/012_ensembles.sql: ensembles of
-- profile traces (issue 16): a member gets its position in the ensemble and
-- its name there, and its execution parameters move from 005's params_json
-- to ensemble_params, text values keyed by name with their source
-- ('metadata', 'user' or 'csv'); the parameters 005 held become 'user' ones.
--
-- SQLite rebuilds ensemble_members (ensemble_members_012, copy, drop,
-- rename) only because it cannot drop a column or add a NOT NULL column
-- without a default; here ALTER TABLE does it in place, with the same
-- resulting columns in the same order (ensemble_id, trace_id, position,
-- name) and the same data: position = the member's rank by trace id within
-- its ensemble, from 0; name = the trace's name. ensemble_members_by_trace
-- (005) stays; SQLite recreates it because its rebuild dropped it.
--
-- The parameters: SQLite takes json_each() of params_json when
-- json_valid() (else '{}'), keeps every value that is not an object, array
-- or null, as text (true/false as '1'/'0'). PostgreSQL 15 has no validity
-- test that does not raise, so a temporary function parses the document and
-- falls back to '{}'. Differences left: a number is kept as written
-- (SQLite prints a real through REAL: 1e3 becomes '1000.0'); a top-level
-- JSON scalar, on which SQLite's insert fails (a NULL key), is skipped.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

ALTER TABLE ensemble_members ADD COLUMN position bigint, ADD COLUMN name text COLLATE "C";
UPDATE ensemble_members m
    SET position = r.position, name = t.name
    FROM (SELECT ensemble_id, trace_id,
                 row_number() OVER (PARTITION BY ensemble_id ORDER BY trace_id) - 1 AS position
          FROM ensemble_members) r,
         traces t
    WHERE r.ensemble_id = m.ensemble_id AND r.trace_id = m.trace_id AND t.id = m.trace_id;
ALTER TABLE ensemble_members ALTER COLUMN position SET NOT NULL, ALTER COLUMN name SET NOT NULL;

CREATE TABLE ensemble_params (
    ensemble_id bigint NOT NULL,
    trace_id    bigint NOT NULL,
    key         text COLLATE "C" NOT NULL,
    value       text COLLATE "C" NOT NULL,
    source      text COLLATE "C" NOT NULL CHECK (source IN ('metadata', 'user', 'csv')),
    PRIMARY KEY (ensemble_id, trace_id, key),
    FOREIGN KEY (ensemble_id, trace_id)
        REFERENCES ensemble_members(ensemble_id, trace_id) ON DELETE CASCADE
);

CREATE FUNCTION pg_temp.ari_012_json(doc text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
    RETURN doc::jsonb;
EXCEPTION WHEN others THEN
    RETURN '{}'::jsonb;
END
$$;

CREATE FUNCTION pg_temp.ari_012_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE jsonb_typeof(v) WHEN 'boolean' THEN CASE WHEN v::boolean THEN '1' ELSE '0' END
                                ELSE v #>> '{}' END
$$;

INSERT INTO ensemble_params (ensemble_id, trace_id, key, value, source)
    SELECT m.ensemble_id, m.trace_id, j.key, pg_temp.ari_012_text(j.value), 'user'
    FROM ensemble_members m
    CROSS JOIN LATERAL (SELECT pg_temp.ari_012_json(m.params_json) AS doc) d
    CROSS JOIN LATERAL (SELECT e.key, e.value
                        FROM jsonb_each(CASE jsonb_typeof(d.doc) WHEN 'object' THEN d.doc ELSE '{}' END) e
                        UNION ALL
                        SELECT (a.i - 1)::text, a.value
                        FROM jsonb_array_elements(CASE jsonb_typeof(d.doc) WHEN 'array' THEN d.doc ELSE '[]' END)
                             WITH ORDINALITY a(value, i)) j
    WHERE jsonb_typeof(j.value) NOT IN ('object', 'array', 'null');

DROP FUNCTION pg_temp.ari_012_text(jsonb);
DROP FUNCTION pg_temp.ari_012_json(text);

ALTER TABLE ensemble_members DROP COLUMN params_json;
CREATE UNIQUE INDEX ensemble_members_by_position ON ensemble_members(ensemble_id, position);
