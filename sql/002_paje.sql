-- 002_paje: the generic Paje model of a trace: types, containers, and the
-- states, variables, links and events that happen in them. Ids are per trace
-- (1, 2, ...) and assigned by the importer; names and values are interned in
-- `names` so that millions of states store integers, not strings.

CREATE TABLE entity_types (
    trace_id   INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    id         INTEGER NOT NULL,
    nature     TEXT NOT NULL CHECK (nature IN ('container', 'state', 'variable', 'link', 'event', 'value')),
    alias      TEXT NOT NULL,
    name       TEXT NOT NULL,
    parent_id  INTEGER,            -- enclosing type (NULL: the root type "0")
    start_type_id INTEGER,         -- links only
    end_type_id   INTEGER,
    color      TEXT,
    PRIMARY KEY (trace_id, id)
) WITHOUT ROWID;

CREATE TABLE containers (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    id        INTEGER NOT NULL,
    parent_id INTEGER,             -- NULL for the root "0" (id 1, type NULL)
    type_id   INTEGER,
    alias     TEXT NOT NULL,
    name      TEXT NOT NULL,
    start     REAL NOT NULL,
    end       REAL NOT NULL,
    PRIMARY KEY (trace_id, id)
) WITHOUT ROWID;

CREATE TABLE names (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    id       INTEGER NOT NULL,
    name     TEXT NOT NULL,
    PRIMARY KEY (trace_id, id)
) WITHOUT ROWID;

CREATE TABLE states (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,
    type_id      INTEGER NOT NULL,
    value_id     INTEGER NOT NULL,   -- names.id
    start        REAL NOT NULL,
    end          REAL NOT NULL,
    depth        INTEGER NOT NULL,
    fields       TEXT                -- user-defined fields as a JSON object, or NULL
);
CREATE INDEX states_by_container ON states(trace_id, container_id, start);

CREATE TABLE variables (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,
    type_id      INTEGER NOT NULL,
    start        REAL NOT NULL,
    end          REAL NOT NULL,
    value        REAL NOT NULL
);
CREATE INDEX variables_by_container ON variables(trace_id, container_id, type_id, start);

CREATE TABLE links (
    trace_id           INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id       INTEGER NOT NULL,
    type_id            INTEGER NOT NULL,
    value_id           INTEGER NOT NULL,
    start_container_id INTEGER NOT NULL,
    end_container_id   INTEGER NOT NULL,
    key                TEXT NOT NULL,
    start              REAL NOT NULL,
    end                REAL NOT NULL,
    fields             TEXT
);
CREATE INDEX links_by_start ON links(trace_id, start);

CREATE TABLE events (
    trace_id     INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id INTEGER NOT NULL,
    type_id      INTEGER NOT NULL,
    value_id     INTEGER NOT NULL,
    time         REAL NOT NULL,
    fields       TEXT
);
CREATE INDEX events_by_container ON events(trace_id, container_id, time);
