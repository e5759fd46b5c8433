-- 014_metrics: sampled per-entity metrics (kind 'pdes'): ROSS PDES runs
-- (PE > KP > LP, sampled at every GVT) and any per-entity counters over
-- time (generic long and wide CSVs). One trace is an entity x metric x
-- time tensor: the values of one (metric, entity) pair are ONE blob of
-- little-endian float64 over the trace's time points (NaN: no sample).
-- Written by src/store/metrics_writer.c, read by metrics_queries.c.

-- The entity hierarchy: any parent chain. ROSS levels are 'PE', 'KP',
-- 'LP'; the generic CSVs use 'entity' (rows with values) and 'group' (the
-- optional parent column). Parents have smaller ids than their children.
CREATE TABLE mt_entities (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL,          -- 0..n-1
    level     TEXT NOT NULL,             -- 'PE', 'KP', 'LP', 'entity', 'group'
    name      TEXT NOT NULL,             -- 'KP 100', 'rank 3', ...
    parent_id INTEGER,                   -- NULL for a root
    has_data  INTEGER NOT NULL DEFAULT 0, -- 1 if values were read for it
    PRIMARY KEY (trace_id, entity_id)
) WITHOUT ROWID;

CREATE TABLE mt_metrics (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,
    name      TEXT NOT NULL,             -- 'RbTotal', 'NetworkSend', ...
    unit      TEXT NOT NULL DEFAULT '',  -- 'events', 'virtual time', '' if unknown
    derived   INTEGER NOT NULL DEFAULT 0, -- 1: computed at import (RbPrim = RbTotal - RbSec)
    attribute INTEGER NOT NULL DEFAULT 0, -- 1: a record attribute (EntityId, EventId, Mode, Status)
    PRIMARY KEY (trace_id, metric_id)
) WITHOUT ROWID;

-- The time points, one blob of float64 per time domain (domain 0 is the
-- one the points are keyed and ordered by: LastGvt for ROSS, `time` for
-- the generic CSVs; NaN where a domain has no value for a point).
CREATE TABLE mt_domains (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL,
    name      TEXT NOT NULL,             -- 'LastGvt', 'VirtualTs', 'RealTs', 'time'
    times     BLOB NOT NULL,             -- float64[t]
    PRIMARY KEY (trace_id, domain_id)
) WITHOUT ROWID;

-- The values of one metric for one entity over every time point; the mean
-- where a file gave several samples of the same (entity, time).
CREATE TABLE mt_values (
    trace_id  INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL,
    entity_id INTEGER NOT NULL,
    vals      BLOB NOT NULL,             -- float64[t], NaN = no sample
    PRIMARY KEY (trace_id, metric_id, entity_id)
) WITHOUT ROWID;

-- Communication per time point (ROSS CommData: events each KP sent to each
-- KP in the interval before the point), sparse: (int32 src entity, int32
-- dst entity, float64 count) little-endian triples, 16 bytes each, sorted
-- by (src, dst), zero counts left out.
CREATE TABLE mt_comm (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    time_idx INTEGER NOT NULL,
    triples  BLOB NOT NULL,
    PRIMARY KEY (trace_id, time_idx)
) WITHOUT ROWID;
