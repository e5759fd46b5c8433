-- 014_metrics (PostgreSQL): mirrors sql/014_metrics.sql: sampled per-entity
-- metrics (kind 'pdes'): ROSS PDES runs and per-entity counters over time.
-- The values of one (metric, entity) pair are ONE bytea of little-endian
-- float64 over the trace's time points (NaN: no sample). BLOB -> bytea;
-- WITHOUT ROWID is dropped.
--
-- Partitioning (issue 20): mt_values (the metric samples: metrics x
-- entities rows of time-long arrays), mt_comm (one row per time point) and
-- mt_entities (a ROSS run has up to millions of LPs) are PARTITION BY LIST
-- (trace_id) with a DEFAULT partition; their primary keys already start
-- with trace_id: no key change. mt_metrics and mt_domains (a few rows per
-- trace) are plain tables.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

-- The entity hierarchy: any parent chain. Parents have smaller ids than
-- their children.
CREATE TABLE mt_entities (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    entity_id bigint NOT NULL,           -- 0..n-1
    level     text COLLATE "C" NOT NULL,             -- 'PE', 'KP', 'LP', 'entity', 'group'
    name      text COLLATE "C" NOT NULL,             -- 'KP 100', 'rank 3', ...
    parent_id bigint,                    -- NULL for a root
    has_data  bigint NOT NULL DEFAULT 0, -- 1 if values were read for it
    PRIMARY KEY (trace_id, entity_id)
) PARTITION BY LIST (trace_id);
CREATE TABLE mt_entities_default PARTITION OF mt_entities DEFAULT;

CREATE TABLE mt_metrics (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id bigint NOT NULL,
    name      text COLLATE "C" NOT NULL,             -- 'RbTotal', 'NetworkSend', ...
    unit      text COLLATE "C" NOT NULL DEFAULT '',  -- 'events', 'virtual time', '' if unknown
    derived   bigint NOT NULL DEFAULT 0, -- 1: computed at import (RbPrim = RbTotal - RbSec)
    attribute bigint NOT NULL DEFAULT 0, -- 1: a record attribute (EntityId, EventId, Mode, Status)
    PRIMARY KEY (trace_id, metric_id)
);

-- The time points, one array of float64 per time domain.
CREATE TABLE mt_domains (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    domain_id bigint NOT NULL,
    name      text COLLATE "C" NOT NULL,             -- 'LastGvt', 'VirtualTs', 'RealTs', 'time'
    times     bytea NOT NULL,            -- float64[t]
    PRIMARY KEY (trace_id, domain_id)
);

-- The values of one metric for one entity over every time point.
CREATE TABLE mt_values (
    trace_id  bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id bigint NOT NULL,
    entity_id bigint NOT NULL,
    vals      bytea NOT NULL,            -- float64[t], NaN = no sample
    PRIMARY KEY (trace_id, metric_id, entity_id)
) PARTITION BY LIST (trace_id);
CREATE TABLE mt_values_default PARTITION OF mt_values DEFAULT;

-- Communication per time point, sparse (int32 src, int32 dst, float64
-- count) little-endian triples.
CREATE TABLE mt_comm (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    time_idx bigint NOT NULL,
    triples  bytea NOT NULL,
    PRIMARY KEY (trace_id, time_idx)
) PARTITION BY LIST (trace_id);
CREATE TABLE mt_comm_default PARTITION OF mt_comm DEFAULT;
