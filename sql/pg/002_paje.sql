-- 002_paje (PostgreSQL): mirrors sql/002_paje.sql: the generic Paje model of
-- a trace: types, containers, and the states, variables, links and events
-- that happen in them. Ids are per trace and assigned by the importer;
-- names and values are interned in `names`.
-- `end` is a reserved word in PostgreSQL: the column keeps its name, quoted.
-- WITHOUT ROWID is dropped (a PostgreSQL table is a heap plus its indexes).
--
-- Partitioning (issue 20, sharding by trace): states, variables, links and
-- events grow with the trace's events and are PARTITION BY LIST (trace_id),
-- each with a DEFAULT partition <table>_default; the store attaches one
-- partition per imported trace. None of the four has a key in SQLite (rowid
-- tables), so no key changes; their indexes all start with trace_id.
-- entity_types, containers and names grow with the trace's resources and
-- types, not its events: plain tables.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

CREATE TABLE entity_types (
    trace_id   bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    id         bigint NOT NULL,
    nature     text COLLATE "C" NOT NULL CHECK (nature IN ('container', 'state', 'variable', 'link', 'event', 'value')),
    alias      text COLLATE "C" NOT NULL,
    name       text COLLATE "C" NOT NULL,
    parent_id  bigint,             -- enclosing type (NULL: the root type "0")
    start_type_id bigint,          -- links only
    end_type_id   bigint,
    color      text COLLATE "C",
    PRIMARY KEY (trace_id, id)
);

CREATE TABLE containers (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    id        bigint NOT NULL,
    parent_id bigint,              -- NULL for the root "0" (id 1, type NULL)
    type_id   bigint,
    alias     text COLLATE "C" NOT NULL,
    name      text COLLATE "C" NOT NULL,
    start     double precision NOT NULL,
    "end"     double precision NOT NULL,
    PRIMARY KEY (trace_id, id)
);

CREATE TABLE names (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    id       bigint NOT NULL,
    name     text COLLATE "C" NOT NULL,
    PRIMARY KEY (trace_id, id)
);

CREATE TABLE states (
    trace_id     bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,
    type_id      bigint NOT NULL,
    value_id     bigint NOT NULL,   -- names.id
    start        double precision NOT NULL,
    "end"        double precision NOT NULL,
    depth        bigint NOT NULL,
    fields       text COLLATE "C",              -- user-defined fields as a JSON object, or NULL
    -- SQLite's implicit rowid (the order states were written in): a row's
    -- states are read ORDER BY start, depth, rowid, so that ties come out in
    -- SQLite's order on both backends. A sequence, as on links below: the
    -- import's COPY, in staged-row order, leaves it to the default.
    rowid        bigserial
) PARTITION BY LIST (trace_id);
CREATE TABLE states_default PARTITION OF states DEFAULT;
CREATE INDEX states_by_container ON states(trace_id, container_id, start);

CREATE TABLE variables (
    trace_id     bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,
    type_id      bigint NOT NULL,
    start        double precision NOT NULL,
    "end"        double precision NOT NULL,
    value        double precision NOT NULL
) PARTITION BY LIST (trace_id);
CREATE TABLE variables_default PARTITION OF variables DEFAULT;
CREATE INDEX variables_by_container ON variables(trace_id, container_id, type_id, start);

CREATE TABLE links (
    trace_id           bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id       bigint NOT NULL,
    type_id            bigint NOT NULL,
    value_id           bigint NOT NULL,
    start_container_id bigint NOT NULL,
    end_container_id   bigint NOT NULL,
    key                text COLLATE "C" NOT NULL,
    start              double precision NOT NULL,
    "end"              double precision NOT NULL,
    fields             text COLLATE "C",
    -- SQLite's implicit rowid (the order links were written in), by which
    -- datamove_queries.c orders links of one start time: a sequence, as
    -- PostgreSQL 15 has no identity column on a partitioned table. Not a
    -- column of SQLite's links, so the import's COPY leaves it to the default.
    rowid              bigserial
) PARTITION BY LIST (trace_id);
CREATE TABLE links_default PARTITION OF links DEFAULT;
CREATE INDEX links_by_start ON links(trace_id, start);

-- 017 rebuilds this table (a seq column and a clustered key).
CREATE TABLE events (
    trace_id     bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,
    type_id      bigint NOT NULL,
    value_id     bigint NOT NULL,
    time         double precision NOT NULL,
    fields       text COLLATE "C"
) PARTITION BY LIST (trace_id);
CREATE TABLE events_default PARTITION OF events DEFAULT;
CREATE INDEX events_by_container ON events(trace_id, container_id, time);
