-- 003_tasks (PostgreSQL): mirrors sql/003_tasks.sql: the task-level model of
-- a task-based trace (StarPU bundles, StarVZ phase-1 CSV sets): tasks, their
-- dependencies, data handles, workers and the elimination tree.
-- `end` is quoted (reserved in PostgreSQL); WITHOUT ROWID is dropped.
--
-- Partitioning (issue 20): tasks, deps, data_handles and atree grow with the
-- trace's tasks and are PARTITION BY LIST (trace_id) with a DEFAULT
-- partition. Their keys already start with trace_id (deps' unique index,
-- atree's primary key), so no key changes. workers (one row per worker) is
-- a plain table.
-- Text columns are COLLATE "C" (SQLite's BINARY order; see 001).

-- Containers that execute tasks (StarPU workers).
CREATE TABLE workers (
    trace_id      bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id  bigint NOT NULL,
    node          bigint NOT NULL,     -- MPI rank (the "0_" prefix), 0 if single-node
    resource_type text COLLATE "C" NOT NULL,       -- CPU, CUDA, OpenCL, ...
    resource      text COLLATE "C" NOT NULL,       -- name without the node prefix, e.g. CPU3, CUDA0_0
    name          text COLLATE "C" NOT NULL,       -- container name, e.g. 0_CPU3
    PRIMARY KEY (trace_id, container_id)
);

-- One row per application task (StarVZ's "Application" table).
CREATE TABLE tasks (
    trace_id      bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    job_id        text COLLATE "C" NOT NULL,       -- StarPU JobId, with its rank prefix on MPI runs
    type          text COLLATE "C" NOT NULL,       -- codelet name (the Paje state value)
    worker_id     bigint,              -- containers.id of the worker, NULL if unknown
    node          bigint NOT NULL,
    resource_type text COLLATE "C",
    start         double precision NOT NULL,
    "end"         double precision NOT NULL,
    submit_order  bigint,
    submit_time   double precision,
    priority      bigint,
    tag           text COLLATE "C",
    gflop         double precision,
    iteration     bigint,
    subiteration  bigint,
    params        text COLLATE "C",
    footprint     text COLLATE "C",
    size          bigint,
    x             bigint,
    y             bigint,
    memory_node   bigint,
    worker_rank   bigint,              -- tasks.rec WorkerId
    model         text COLLATE "C",
    handles       text COLLATE "C",                -- space-separated handle addresses
    modes         text COLLATE "C",                -- access modes, one per handle
    anode         bigint,              -- elimination-tree node, when the trace has a tree
    -- SQLite's implicit rowid (the order tasks were written in): the loaders
    -- order by (job_id, rowid), the order SQLite's tasks_by_job scan gives,
    -- and a worker's tasks by (start, end, rowid), so that ties come out the
    -- same on both backends. A sequence, as on links (002): the import's
    -- COPY, in staged-row order, leaves it to the default.
    rowid         bigserial
) PARTITION BY LIST (trace_id);
CREATE TABLE tasks_default PARTITION OF tasks DEFAULT;
CREATE INDEX tasks_by_worker ON tasks(trace_id, worker_id, start);
CREATE INDEX tasks_by_type ON tasks(trace_id, type);
CREATE INDEX tasks_by_job ON tasks(trace_id, job_id);

-- job_id depends on depends_on (dag.dot edge depends_on -> job_id, or DependsOn).
CREATE TABLE deps (
    trace_id   bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    job_id     text COLLATE "C" NOT NULL,
    depends_on text COLLATE "C" NOT NULL,
    label      text COLLATE "C"                    -- dag.dot label (task, ghost, ...), or NULL
) PARTITION BY LIST (trace_id);
CREATE TABLE deps_default PARTITION OF deps DEFAULT;
CREATE UNIQUE INDEX deps_by_job ON deps(trace_id, job_id, depends_on);

-- StarPU data handles (data.rec).
CREATE TABLE data_handles (
    trace_id    bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    handle      text COLLATE "C" NOT NULL,
    home_node   bigint,
    mpi_rank    bigint,
    name        text COLLATE "C",
    size        bigint,
    description text COLLATE "C",
    coordinates text COLLATE "C",                  -- space-separated, e.g. "0 2" = tile X Y
    mpi_owner   bigint,
    mpi_tag     bigint
) PARTITION BY LIST (trace_id);
CREATE TABLE data_handles_default PARTITION OF data_handles DEFAULT;
CREATE INDEX data_handles_by_handle ON data_handles(trace_id, handle);

-- Elimination (assembly) tree: atree.csv (Node = parent, DependsOn = child)
-- or atree.dot. Roots have a NULL parent; depth 0 at the roots.
CREATE TABLE atree (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    node     bigint NOT NULL,
    parent   bigint,
    depth    bigint,
    label    text COLLATE "C",                     -- atree.dot node label, if any
    PRIMARY KEY (trace_id, node)
) PARTITION BY LIST (trace_id);
CREATE TABLE atree_default PARTITION OF atree DEFAULT;
