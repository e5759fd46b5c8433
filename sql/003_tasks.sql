-- 003_tasks: the task-level model of a task-based trace (StarPU bundles,
-- StarVZ phase-1 CSV sets): the application tasks, their dependencies, the
-- data handles, the workers and the elimination tree. Times are in the
-- trace's unit (ms for StarPU) after the origin shift kept in the summary
-- (summary_json.time_origin). Container ids refer to containers(trace_id, id).

-- Containers that execute tasks (StarPU workers).
CREATE TABLE workers (
    trace_id      INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id  INTEGER NOT NULL,
    node          INTEGER NOT NULL,    -- MPI rank (the "0_" prefix), 0 if single-node
    resource_type TEXT NOT NULL,       -- CPU, CUDA, OpenCL, ... (name without digits and '_')
    resource      TEXT NOT NULL,       -- name without the node prefix, e.g. CPU3, CUDA0_0
    name          TEXT NOT NULL,       -- container name, e.g. 0_CPU3
    PRIMARY KEY (trace_id, container_id)
) WITHOUT ROWID;

-- One row per application task (StarVZ's "Application" table).
CREATE TABLE tasks (
    trace_id      INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    job_id        TEXT NOT NULL,       -- StarPU JobId, with its rank prefix on MPI runs
    type          TEXT NOT NULL,       -- codelet name (the Paje state value)
    worker_id     INTEGER,             -- containers.id of the worker, NULL if unknown
    node          INTEGER NOT NULL,
    resource_type TEXT,
    start         REAL NOT NULL,
    end           REAL NOT NULL,
    submit_order  INTEGER,
    submit_time   REAL,
    priority      INTEGER,
    tag           TEXT,
    gflop         REAL,
    iteration     INTEGER,
    subiteration  INTEGER,
    params        TEXT,
    footprint     TEXT,
    size          INTEGER,
    x             INTEGER,
    y             INTEGER,
    memory_node   INTEGER,
    worker_rank   INTEGER,             -- tasks.rec WorkerId
    model         TEXT,
    handles       TEXT,                -- space-separated handle addresses
    modes         TEXT,                -- access modes, one per handle
    anode         INTEGER              -- elimination-tree node, when the trace has a tree
);
CREATE INDEX tasks_by_worker ON tasks(trace_id, worker_id, start);
CREATE INDEX tasks_by_type ON tasks(trace_id, type);
CREATE INDEX tasks_by_job ON tasks(trace_id, job_id);

-- job_id depends on depends_on (dag.dot edge depends_on -> job_id, or DependsOn).
CREATE TABLE deps (
    trace_id   INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    job_id     TEXT NOT NULL,
    depends_on TEXT NOT NULL,
    label      TEXT                    -- dag.dot label (task, ghost, ...), or NULL
);
CREATE UNIQUE INDEX deps_by_job ON deps(trace_id, job_id, depends_on);

-- StarPU data handles (data.rec).
CREATE TABLE data_handles (
    trace_id    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    handle      TEXT NOT NULL,
    home_node   INTEGER,
    mpi_rank    INTEGER,
    name        TEXT,
    size        INTEGER,
    description TEXT,
    coordinates TEXT,                  -- space-separated, e.g. "0 2" = tile X Y
    mpi_owner   INTEGER,
    mpi_tag     INTEGER
);
CREATE INDEX data_handles_by_handle ON data_handles(trace_id, handle);

-- Elimination (assembly) tree: atree.csv (Node = parent, DependsOn = child)
-- or atree.dot. Roots have a NULL parent; depth 0 at the roots.
CREATE TABLE atree (
    trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    node     INTEGER NOT NULL,
    parent   INTEGER,
    depth    INTEGER,
    label    TEXT,                     -- atree.dot node label, if any
    PRIMARY KEY (trace_id, node)
) WITHOUT ROWID;
