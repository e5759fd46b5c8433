-- 012_ensembles: ensembles of profile traces (Ensemble CallFlow, issue 16).
-- An ensemble is a named, ordered set of members; a member is a profile
-- trace with its name in the ensemble (default: the trace's name) and its
-- execution parameters, text values keyed by name, each with where it came
-- from: 'metadata' (the profile's own run metadata, read when the member was
-- added), 'user' (edited through the API) or 'csv' (a CSV of run ->
-- parameters). Deleting a trace removes it from every ensemble (cascade
-- through ensemble_members to its parameters); deleting an ensemble never
-- deletes its traces. Replaces 005's ensemble_members (params_json, never
-- written by any API) and keeps what it held as 'user' parameters.

CREATE TABLE ensemble_members_012 (
    ensemble_id INTEGER NOT NULL REFERENCES ensembles(id) ON DELETE CASCADE,
    trace_id    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,   -- the order members were added, 0..
    name        TEXT NOT NULL,      -- the run's name in the ensemble
    PRIMARY KEY (ensemble_id, trace_id)
) WITHOUT ROWID;

INSERT INTO ensemble_members_012 (ensemble_id, trace_id, position, name)
    SELECT m.ensemble_id, m.trace_id,
           row_number() OVER (PARTITION BY m.ensemble_id ORDER BY m.trace_id) - 1, t.name
    FROM ensemble_members m JOIN traces t ON t.id = m.trace_id;

CREATE TABLE ensemble_params (
    ensemble_id INTEGER NOT NULL,
    trace_id    INTEGER NOT NULL,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('metadata', 'user', 'csv')),
    PRIMARY KEY (ensemble_id, trace_id, key),
    FOREIGN KEY (ensemble_id, trace_id)
        REFERENCES ensemble_members_012(ensemble_id, trace_id) ON DELETE CASCADE
) WITHOUT ROWID;

INSERT INTO ensemble_params (ensemble_id, trace_id, key, value, source)
    SELECT m.ensemble_id, m.trace_id, j.key, CAST(j.value AS TEXT), 'user'
    FROM ensemble_members m, json_each(CASE WHEN json_valid(m.params_json) THEN m.params_json
                                           ELSE '{}' END) j
    WHERE j.type NOT IN ('object', 'array', 'null');

DROP TABLE ensemble_members;
ALTER TABLE ensemble_members_012 RENAME TO ensemble_members;
CREATE INDEX ensemble_members_by_trace ON ensemble_members(trace_id);
CREATE UNIQUE INDEX ensemble_members_by_position ON ensemble_members(ensemble_id, position);
