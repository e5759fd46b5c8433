/* csv_tables.c: the CSV tables of every analysis endpoint (csv_tables.h):
 * for each route, the arrays of its JSON answer that hold the marks and
 * the columns of a row, with units. A column's unit MS is the answer's
 * time_unit (ms for task traces, us for data movement, s for some Paje
 * traces). Keep in step with the encoders (server/api_*.c) and with
 * docs/api.md ("CSV"); tests/api/csv.test.mjs checks every table. */
#include "csv_tables.h"

#include <string.h>

#define MS ARI_CSV_TIME

/* The tables leave trailing fields out (op VALUE, no arg, no sub). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// clang-format off
static const ari_csv_table gantt[] = {
    {"tasks", "rows[].tasks[]", "ms", NULL, NULL, {
        {"row", NULL, "@1.name"}, {"node", NULL, "@1.node"}, {"resource_type", NULL, "@1.resource_type"},
        {"resource", NULL, "@1.resource"}, {"job_id", NULL, "job_id"},
        {"type", NULL, "type", ARI_CSV_LOOKUP, "@0.types"}, {"start", MS, "start"}, {"end", MS, "end"},
        {"duration", MS, "end", ARI_CSV_DIFF, "start"}, {"gflop", "GFlop", "gflop"},
        {"iteration", NULL, "iteration"}, {"outlier", NULL, "outlier"}, {NULL}}},
    {"pixels", "rows[].pixels.shares[]", "ms", NULL, NULL, {
        {"row", NULL, "@1.name"}, {"node", NULL, "@1.node"}, {"resource", NULL, "@1.resource"},
        {"pixel", NULL, "[0]"}, {"type", NULL, "[1]", ARI_CSV_LOOKUP, "@0.types"},
        {"share", "fraction", "[2]"}, {NULL}}},
    {"idle", "rows[].pixels.idle[]", "ms", NULL, NULL, {
        {"row", NULL, "@1.name"}, {"node", NULL, "@1.node"}, {"resource", NULL, "@1.resource"},
        {"pixel", NULL, "#"}, {"idle", "fraction", "."}, {NULL}}},
    {"states", "rows[].states.*", "ms", NULL, NULL, {
        {"row", NULL, "@1.name"}, {"node", NULL, "@1.node"}, {"resource", NULL, "@1.resource"},
        {"state", NULL, "#"}, {"share", "fraction", "."}, {NULL}}},
    {"rows", "rows[]", "ms", NULL, NULL, {
        {"row", NULL, "name"}, {"id", NULL, "id"}, {"node", NULL, "node"},
        {"resource_type", NULL, "resource_type"}, {"resource", NULL, "resource"}, {"mode", NULL, "mode"},
        {"idle", "fraction", "idle"}, {NULL}}},
    {NULL}};

static const ari_csv_table states[] = {
    {"states", "rows[].states[]", "ms", "@1.mode", "states", {
        {"container", NULL, "@1.name"}, {"container_id", NULL, "@1.container_id"}, {"path", NULL, "@1.path"},
        {"state_type", NULL, "@1.type"}, {"value", NULL, "[0]", ARI_CSV_LOOKUP, "@0.values", "name"},
        {"depth", NULL, "[1]"}, {"start", MS, "[2]"}, {"end", MS, "[3]"},
        {"duration", MS, "[3]", ARI_CSV_DIFF, "[2]"}, {NULL}}},
    {"pixels", "rows[].states[]", "ms", "@1.mode", "pixels", {
        {"container", NULL, "@1.name"}, {"container_id", NULL, "@1.container_id"}, {"path", NULL, "@1.path"},
        {"state_type", NULL, "@1.type"}, {"pixel", NULL, "[0]"}, {"depth", NULL, "[1]"},
        {"value", NULL, "[2]", ARI_CSV_LOOKUP, "@0.values", "name"}, {"share", "fraction", "[3]"}, {NULL}}},
    {NULL}};

static const ari_csv_table links[] = {
    {"links", "links[]", "ms", NULL, NULL, {
        {"start", MS, "start"}, {"end", MS, "end"}, {"duration", MS, "end", ARI_CSV_DIFF, "start"},
        {"type", NULL, "type"}, {"value", NULL, "value"}, {"key", NULL, "key"},
        {"from", NULL, "from.name"}, {"from_node", NULL, "from.node"}, {"to", NULL, "to.name"},
        {"to_node", NULL, "to.node"}, {NULL}}},
    {NULL}};

static const ari_csv_table panels[] = {
    {"points", "panels[].series[].points[]", "ms", NULL, NULL, {
        {"panel", NULL, "@1.id"}, {"unit", NULL, "@1.unit"}, {"series", NULL, "@2.name"},
        {"node", NULL, "@2.node"}, {"t", MS, "[0]"}, {"value", NULL, "[1]"}, {"min", NULL, "[2]"},
        {"max", NULL, "[3]"}, {NULL}}},
    {NULL}};

#define BOUND_COLUMNS                                                                                    \
    {"makespan", MS, "makespan"}, {"start", MS, "start"}, {"span", MS, "span"}, {"abe", MS, "abe"},     \
        {"cpe", MS, "cpe"}, {"tasks", NULL, "tasks"}, {"workers", NULL, "workers"}
#define ALLOCATION_COLUMNS                                                                               \
    {"resource_type", NULL, "resource_type"}, {"type", NULL, "type"}, {"ideal", "tasks", "ideal"},        \
        {"actual", "tasks", "actual"}, {"mean_duration", MS, "mean_duration"}, {"workers", NULL, "workers"}

static const ari_csv_table bounds[] = {
    {"total", ".", "ms", NULL, NULL, {BOUND_COLUMNS, {NULL}}},
    {"nodes", "nodes[]", "ms", NULL, NULL, {{"node", NULL, "node"}, BOUND_COLUMNS, {NULL}}},
    {"iterations", "iterations[]", "ms", NULL, NULL, {{"iteration", NULL, "iteration"}, BOUND_COLUMNS, {NULL}}},
    {"allocation", "allocation[]", "ms", NULL, NULL, {ALLOCATION_COLUMNS, {NULL}}},
    {"node_allocation", "nodes[].allocation[]", "ms", NULL, NULL,
     {{"node", NULL, "@1.node"}, ALLOCATION_COLUMNS, {NULL}}},
    {"iteration_allocation", "iterations[].allocation[]", "ms", NULL, NULL,
     {{"iteration", NULL, "@1.iteration"}, ALLOCATION_COLUMNS, {NULL}}},
    {NULL}};

static const ari_csv_table outliers[] = {
    {"tasks", "tasks[]", "ms", NULL, NULL, {
        {"job_id", NULL, "job_id"}, {"type", NULL, "type"}, {"resource_type", NULL, "resource_type"},
        {"worker", NULL, "worker"}, {"start", MS, "start"}, {"end", MS, "end"}, {"duration", MS, "duration"},
        {"threshold", MS, "threshold"}, {NULL}}},
    {"groups", "groups[]", "ms", NULL, NULL, {
        {"type", NULL, "type"}, {"resource_type", NULL, "resource_type"}, {"tasks", NULL, "tasks"},
        {"q1", MS, "q1"}, {"q3", MS, "q3"}, {"iqr", MS, "iqr"}, {"threshold", MS, "threshold"},
        {"outliers", NULL, "outliers"}, {NULL}}},
    {NULL}};

static const ari_csv_table critical_path[] = {
    {"tasks", "tasks[]", "ms", NULL, NULL, {
        {"job_id", NULL, "job_id"}, {"type", NULL, "type"}, {"worker_id", NULL, "worker_id"},
        {"worker", NULL, "worker"}, {"start", MS, "start"}, {"end", MS, "end"},
        {"duration", MS, "end", ARI_CSV_DIFF, "start"}, {NULL}}},
    {"edges", "edges[]", "ms", NULL, NULL, {
        {"from", NULL, "from"}, {"to", NULL, "to"}, {"gap", MS, "gap"}, {"count", NULL, "count"}, {NULL}}},
    {NULL}};

static const ari_csv_table compare[] = {
    {"traces", "traces[]", "ms", NULL, NULL, {
        {"trace_id", NULL, "id"}, {"name", NULL, "name"}, {"makespan", MS, "makespan"}, {"abe", MS, "abe"},
        {"cpe", MS, "cpe"}, {"idle", "fraction", "idle"}, {"outliers", NULL, "outliers"},
        {"tasks", NULL, "tasks"}, {"workers", NULL, "workers"}, {"time_origin", MS, "time_origin"}, {NULL}}},
    {NULL}};

static const ari_csv_table progression[] = {
    {"steps", "steps[]", "ms", NULL, NULL, {
        {"step", NULL, "step"}, {"start", MS, "start"}, {"time", MS, "time"}, {"completed", "tasks", "completed"},
        {"mean", NULL, "mean"}, {"abe", MS, "abe"}, {"cumulative_abe", MS, "cumulative_abe"}, {NULL}}},
    {"nodes", "nodes[].values[]", "ms", NULL, NULL, {
        {"node", NULL, "@1.node"}, {"step_index", NULL, "#"}, {"value", NULL, "."}, {NULL}}},
    {"clusters", "steps[].clusters[]", "ms", NULL, NULL, {
        {"step", NULL, "@1.step"}, {"cluster", NULL, "id"}, {"mean", NULL, "mean"}, {"min", NULL, "min"},
        {"max", NULL, "max"}, {"size", "nodes", "size"}, {"nodes", NULL, "nodes"}, {NULL}}},
    {"flows", "flows[]", "ms", NULL, NULL, {
        {"step", NULL, "step"}, {"from", NULL, "from"}, {"to", NULL, "to"}, {"count", "nodes", "count"},
        {"nodes", NULL, "nodes"}, {"minority", NULL, "minority"}, {NULL}}},
    {"density", "steps[].density{}", "ms", NULL, NULL, {
        {"step", NULL, "@1.step"}, {"x", NULL, "x"}, {"density", NULL, "y"}, {NULL}}},
    {NULL}};

static const ari_csv_table timeseries[] = {
    {"points", "series[].points[]", "ms", NULL, NULL, {
        {"series", NULL, "@1.name"}, {"node", NULL, "@1.node"}, {"t", MS, "[0]"}, {"min", "tasks", "[1]"},
        {"max", "tasks", "[2]"}, {"last", "tasks", "[3]"}, {NULL}}},
    {"starved", "starved[]", "ms", NULL, NULL, {
        {"start", MS, "[0]"}, {"end", MS, "[1]"}, {"duration", MS, "[1]", ARI_CSV_DIFF, "[0]"}, {NULL}}},
    {NULL}};

static const ari_csv_table iterations[] = {
    {"iterations", "iterations[]", "ms", NULL, NULL, {
        {"iteration", NULL, "iteration"}, {"start", MS, "start"}, {"end", MS, "end"},
        {"duration", MS, "end", ARI_CSV_DIFF, "start"}, {"tasks", NULL, "tasks"}, {NULL}}},
    {"types", "iterations[].types.*", "ms", NULL, NULL, {
        {"iteration", NULL, "@1.iteration"}, {"type", NULL, "#"}, {"tasks", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table anomalies[] = {
    {"tasks", "tasks[]", "ms", NULL, NULL, {
        {"job_id", NULL, "job_id"}, {"type", NULL, "type"}, {"resource_type", NULL, "resource_type"},
        {"worker", NULL, "worker"}, {"start", MS, "start"}, {"end", MS, "end"}, {"duration", MS, "duration"},
        {"gflop", "GFlop", "gflop"}, {"fit", MS, "fit"}, {"lwr", MS, "lwr"}, {"upr", MS, "upr"},
        {"cluster", NULL, "cluster"}, {"anomaly", NULL, "anomaly"}, {NULL}}},
    {"groups", "groups[]", "ms", NULL, NULL, {
        {"type", NULL, "type"}, {"resource_type", NULL, "resource_type"}, {"cluster", NULL, "cluster"},
        {"tasks", NULL, "tasks"}, {"fittable", NULL, "fittable"}, {"reason", NULL, "reason"},
        {"b0", NULL, "b0"}, {"b1", NULL, "b1"}, {"s", NULL, "s"}, {"df", NULL, "df"}, {"r2", NULL, "r2"},
        {"r2_duration", NULL, "r2_duration"}, {"mae", MS, "mae"}, {"rmse", MS, "rmse"},
        {"anomalies", NULL, "anomalies"}, {"gflop_min", "GFlop", "gflop_min"},
        {"gflop_max", "GFlop", "gflop_max"}, {NULL}}},
    {NULL}};

static const ari_csv_table models[] = {
    {"models", "groups[].models.*", "ms", NULL, NULL, {
        {"type", NULL, "@1.type"}, {"resource_type", NULL, "@1.resource_type"}, {"model", NULL, "#"},
        {"tasks", NULL, "tasks"}, {"fittable", NULL, "fittable"}, {"reason", NULL, "reason"},
        {"b0", NULL, "b0"}, {"b1", NULL, "b1"}, {"r2", NULL, "r2"}, {"mae", MS, "mae"}, {"rmse", MS, "rmse"},
        {"anomalies", NULL, "anomalies"}, {"mixture_k", NULL, "mixture.k"}, {NULL}}},
    {NULL}};

#define TREE_NODE_COLUMNS                                                                                \
    {"node", NULL, "id"}, {"parent", NULL, "parent"}, {"depth", NULL, "depth"},                           \
        {"position", NULL, "position"}, {"height", NULL, "height"}, {"type", NULL, "type"},              \
        {"intermediary", NULL, "intermediary"}, {"start", MS, "start"}, {"end", MS, "end"},              \
        {"first_compute", MS, "first_compute"}, {"last_compute", MS, "last_compute"}, {"tasks", NULL, "tasks"}
#define TREE_TASK_COLUMNS                                                                                \
    {"node", NULL, "node"}, {"job_id", NULL, "job_id"}, {"type", NULL, "type"}, {"start", MS, "start"},   \
        {"end", MS, "end"}, {"duration", MS, "end", ARI_CSV_DIFF, "start"}

static const ari_csv_table atree[] = {
    {"nodes", "nodes{}", "ms", NULL, NULL, {TREE_NODE_COLUMNS, {NULL}}},
    {"cells", "cells{}", "ms", NULL, NULL, {
        {"node", NULL, "node"}, {"pruned", NULL, "pruned"}, {"slice", NULL, "slice"}, {"x0", MS, "x0"},
        {"x1", MS, "x1"}, {"value", NULL, "value"}, {NULL}}},
    {"init", "init{}", "ms", NULL, NULL, {TREE_TASK_COLUMNS, {NULL}}},
    {"assembly", "assembly{}", "ms", NULL, NULL, {TREE_TASK_COLUMNS, {NULL}}},
    {"anomalies", "anomalies{}", "ms", NULL, NULL, {TREE_TASK_COLUMNS, {NULL}}},
    {NULL}};

static const ari_csv_table tree_utilization[] = {
    {"layers", "layers[]{}", "ms", NULL, NULL, {
        {"color", NULL, "@1.color"}, {"slice", NULL, "#"}, {"value", "percent", "value"},
        {"node", NULL, "node"}, {NULL}}},
    {"depths", "depths[].value[]", "ms", NULL, NULL, {
        {"depth", NULL, "@1.depth"}, {"slice", NULL, "#"}, {"value", "percent", "."}, {NULL}}},
    {NULL}};

static const ari_csv_table tree_memory[] = {
    {"aggregated", "aggregated{}", "ms", NULL, NULL, {
        {"slice", NULL, "#"}, {"pruned", NULL, "pruned"}, {"not_pruned", NULL, "not_pruned"},
        {"memory", "MB", "memory"}, {NULL}}},
    {"raw", "raw.*{}", "ms", NULL, NULL, {
        {"series", NULL, "@1#"}, {"t", MS, "t"}, {"value", NULL, "value"}, {NULL}}},
    {NULL}};

static const ari_csv_table tree_compare[] = {
    {"cells", "cells{}", "ms", NULL, NULL, {
        {"node", NULL, "node"}, {"pruned", NULL, "pruned"}, {"slice", NULL, "slice"},
        {"faster", NULL, "faster"}, {"slower", NULL, "slower"}, {"diff", NULL, "diff"},
        {"status", NULL, "status"}, {NULL}}},
    {"nodes", "nodes{}", "ms", NULL, NULL, {TREE_NODE_COLUMNS, {NULL}}},
    {"cumulative", "cumulative[]", "ms", NULL, NULL, {{"slice", NULL, "#"}, {"value", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table aggregation[] = {
    {"aggregates", "aggregates[]", "ms", NULL, NULL, {
        {"node", NULL, "node"}, {"name", NULL, "name"}, {"start", MS, "start"}, {"end", MS, "end"},
        {"time", MS, "time"}, {"gain", NULL, "gain"}, {"loss", NULL, "loss"},
        {"first_slice", NULL, "slices[0]"}, {"last_slice", NULL, "slices[1]"}, {NULL}}},
    {"proportions", "aggregates[].proportions[]", "ms", NULL, NULL, {
        {"node", NULL, "@1.node"}, {"name", NULL, "@1.name"}, {"start", MS, "@1.start"}, {"end", MS, "@1.end"},
        {"value", NULL, "#", ARI_CSV_LOOKUP, "@0.values"}, {"proportion", "fraction", "."}, {NULL}}},
    {"hierarchy", "hierarchy[]", "ms", NULL, NULL, {
        {"node", NULL, "#"}, {"name", NULL, "name"}, {"kind", NULL, "kind"}, {"parent", NULL, "parent"},
        {"first_leaf", NULL, "leaves[0]"}, {"last_leaf", NULL, "leaves[1]"}, {NULL}}},
    {NULL}};

static const ari_csv_table aggregation_levels[] = {
    {"levels", "levels[]", "ms", NULL, NULL, {
        {"p_from", NULL, "p_from"}, {"p_to", NULL, "p_to"}, {"p", NULL, "p"}, {"count", NULL, "count"},
        {"gain", NULL, "gain"}, {"loss", NULL, "loss"}, {NULL}}},
    {NULL}};

static const ari_csv_table cct[] = {
    {"metrics", "tree[].metrics.*", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"parent", NULL, "@1.parent"}, {"name", NULL, "@1.name"},
        {"module", NULL, "@1.module"}, {"file", NULL, "@1.file"}, {"line", NULL, "@1.line"},
        {"kind", NULL, "@1.kind"}, {"depth", NULL, "@1.depth"}, {"metric", NULL, "#"},
        {"mean", NULL, "mean"}, {"min", NULL, "min"}, {"max", NULL, "max"}, {NULL}}},
    {"nodes", "tree[]", NULL, NULL, NULL, {
        {"node", NULL, "id"}, {"parent", NULL, "parent"}, {"name", NULL, "name"}, {"module", NULL, "module"},
        {"file", NULL, "file"}, {"line", NULL, "line"}, {"kind", NULL, "kind"}, {"depth", NULL, "depth"},
        {NULL}}},
    {NULL}};

static const ari_csv_table ranks[] = {
    {"ranks", "ranks[]", NULL, NULL, NULL, {
        {"node", NULL, "@0.node.id"}, {"metric", NULL, "@0.metric"}, {"rank", NULL, "rank"},
        {"thread", NULL, "thread"}, {"value", NULL, "value"}, {NULL}}},
    {"histogram", "histogram[]", NULL, NULL, NULL, {
        {"lo", NULL, "lo"}, {"hi", NULL, "hi"}, {"count", "ranks", "count"}, {"ranks", NULL, "ranks"}, {NULL}}},
    {NULL}};

static const ari_csv_table scatter[] = {
    {"points", "points[]", NULL, NULL, NULL, {
        {"node", NULL, "@0.node.id"}, {"rank", NULL, "rank"}, {"thread", NULL, "thread"}, {"x", NULL, "x"},
        {"y", NULL, "y"}, {NULL}}},
    {NULL}};

static const ari_csv_table supergraph[] = {
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"name", NULL, "name"}, {"module", NULL, "module"}, {"kind", NULL, "kind"},
        {"level", NULL, "level"}, {"functions", NULL, "functions"}, {"inclusive", NULL, "inclusive"},
        {"exclusive", NULL, "exclusive"}, {"filtered", NULL, "filtered"}, {"root_inflow", NULL, "root_inflow"},
        {"callers", NULL, "caller_count"}, {NULL}}},
    {"edges", "edges[]", NULL, NULL, NULL, {
        {"source", NULL, "source"}, {"target", NULL, "target"}, {"weight", NULL, "weight"}, {NULL}}},
    {NULL}};

static const ari_csv_table movements[] = {
    {"movements", "movements[]", "us", NULL, NULL, {
        {"event", NULL, "event"}, {"src", NULL, "src"}, {"dst", NULL, "dst"}, {"kind", NULL, "kind"},
        {"bytes", NULL, "bytes"}, {"start", MS, "start"}, {"duration", MS, "dur"},
        {"bandwidth", "GB_per_s", "bandwidth"}, {"trace_bandwidth", "GB_per_s", "trace_bandwidth"},
        {"key", NULL, "key"}, {"handle", NULL, "handle"}, {"handle_name", NULL, "handle_name"}, {NULL}}},
    {NULL}};

static const ari_csv_table movement_matrix[] = {
    {"cells", "bytes[][]", "us", NULL, NULL, {
        {"src", NULL, "@1#", ARI_CSV_LOOKUP, "@0.components"},
        {"dst", NULL, "@2#", ARI_CSV_LOOKUP, "@0.components"}, {"bytes", NULL, "."},
        {"bandwidth", "GB_per_s", ".", ARI_CSV_PARALLEL, "@0.bandwidth"}, {NULL}}},
    {NULL}};

static const ari_csv_table movement_timeline[] = {
    {"events", "events[]", "us", NULL, NULL, {
        {"id", NULL, "id"}, {"track", NULL, "track"},
        {"track_label", NULL, "track", ARI_CSV_LOOKUP, "@0.tracks", "label"}, {"category", NULL, "category"},
        {"name", NULL, "name"}, {"cat", NULL, "cat"}, {"start", MS, "start"}, {"duration", MS, "dur"},
        {"type", NULL, "type"}, {"correlation", NULL, "correlation"}, {NULL}}},
    {"groups", "groups[]", "us", NULL, NULL, {
        {"track", NULL, "track"}, {"track_label", NULL, "track", ARI_CSV_LOOKUP, "@0.tracks", "label"},
        {"category", NULL, "category"}, {"start", MS, "start"}, {"end", MS, "end"}, {"count", NULL, "count"},
        {"busy", MS, "busy"}, {"bytes", NULL, "bytes"}, {NULL}}},
    {"tracks", "tracks[]", "us", NULL, NULL, {
        {"id", NULL, "id"}, {"pid", NULL, "pid"}, {"tid", NULL, "tid"}, {"label", NULL, "label"},
        {"device", NULL, "device"}, {NULL}}},
    {NULL}};

static const ari_csv_table clock[] = {
    {"sectors", "values[][]", "us", NULL, NULL, {
        {"sector", NULL, "@1#"}, {"category", NULL, "@2#", ARI_CSV_LOOKUP, "@0.categories"},
        {"time", MS, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table topology[] = {
    {"components", "components[]", "us", NULL, NULL, {
        {"id", NULL, "id"}, {"parent", NULL, "parent"}, {"kind", NULL, "kind"}, {"name", NULL, "name"},
        {"os_index", NULL, "os_index"}, {"logical_index", NULL, "logical_index"}, {"key", NULL, "key"},
        {"bytes", NULL, "bytes"}, {"utilization", "fraction", "utilization"}, {NULL}}},
    {"links", "links[]", "us", NULL, NULL, {
        {"src", NULL, "src"}, {"dst", NULL, "dst"}, {"bytes", NULL, "bytes"},
        {"bandwidth", "GB_per_s", "bandwidth"}, {NULL}}},
    {NULL}};

static const ari_csv_table metric_series[] = {
    {"points", "series[]{}", "us", NULL, NULL, {
        {"series", NULL, "@1.id"}, {"metric", NULL, "@1.metric"}, {"component", NULL, "@1.component"},
        {"source", NULL, "@1.source"}, {"t", MS, "ts"}, {"value", NULL, "values"}, {NULL}}},
    {NULL}};

/* api_ensemble_stats.c */
static const ari_csv_table ensemble_stats[] = {
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"parent", NULL, "parent"}, {"path", NULL, "path"}, {"name", NULL, "name"},
        {"module", NULL, "module"}, {"kind", NULL, "kind"}, {"present", NULL, "present"}, {"count", NULL, "count"},
        {"mean", NULL, "mean"}, {"median", NULL, "median"}, {"min", NULL, "min"}, {"max", NULL, "max"},
        {"std", NULL, "std"}, {"variance", NULL, "variance"}, {NULL}}},
    {"percentiles", "nodes[].percentiles.*", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"path", NULL, "@1.path"}, {"percentile", NULL, "#"}, {"value", NULL, "."},
        {NULL}}},
    {"values", "nodes[].values[]", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"path", NULL, "@1.path"},
        {"trace_id", NULL, "#", ARI_CSV_LOOKUP, "@0.runs", "trace_id"},
        {"run", NULL, "#", ARI_CSV_LOOKUP, "@0.runs", "name"}, {"value", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table ensemble_scaling[] = {
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"parent", NULL, "parent"}, {"path", NULL, "path"}, {"name", NULL, "name"},
        {"module", NULL, "module"}, {"present", NULL, "present"}, {"points", NULL, "points"},
        {"model", NULL, "model"}, {"constant", NULL, "constant"}, {"a", NULL, "a"}, {"b", NULL, "b"},
        {"c0", NULL, "c0"}, {"c1", NULL, "c1"}, {"cv_smape", "percent", "cv_smape"}, {"r2", NULL, "r2"},
        {"f_min", NULL, "f_min"}, {"f_max", NULL, "f_max"}, {"growth", NULL, "growth"}, {"rank", NULL, "rank"},
        {NULL}}},
    {"runs", "runs[]", NULL, NULL, NULL, {
        {"trace_id", NULL, "trace_id"}, {"name", NULL, "name"}, {"value", NULL, "value"}, {NULL}}},
    {NULL}};

/* api_ensemble_supergraph.c, api_ensemble_nodes.c, api_ensemble_diff.c */
static const ari_csv_table ensemble_supergraph[] = {
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"key", NULL, "key"}, {"name", NULL, "name"}, {"module", NULL, "module"},
        {"kind", NULL, "kind"}, {"level", NULL, "level"}, {"present", NULL, "inclusive.present"},
        {"inc_max", NULL, "inclusive.max"}, {"inc_min", NULL, "inclusive.min"}, {"inc_mean", NULL, "inclusive.mean"},
        {"exc_max", NULL, "exclusive.max"}, {"exc_min", NULL, "exclusive.min"}, {"exc_mean", NULL, "exclusive.mean"},
        {"target_inc", NULL, "target.inclusive"}, {"target_exc", NULL, "target.exclusive"}, {NULL}}},
    {"edges", "edges[]", NULL, NULL, NULL, {
        {"source", NULL, "source"}, {"target", NULL, "target"}, {"weight", NULL, "weight"},
        {"weight_min", NULL, "weight_min"}, {"weight_mean", NULL, "weight_mean"}, {"present", NULL, "present"},
        {"target_weight", NULL, "target_weight"}, {NULL}}},
    {"values", "nodes[].inclusive.runs[]", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"trace_id", NULL, "#", ARI_CSV_LOOKUP, "@0.runs", "trace_id"},
        {"run", NULL, "#", ARI_CSV_LOOKUP, "@0.runs", "name"}, {"inclusive", NULL, "."},
        {"exclusive", NULL, "#", ARI_CSV_LOOKUP, "@1.exclusive.runs"}, {NULL}}},
    {"gradient", "nodes[].gradient.inclusive.counts[]", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"bin", NULL, "#"}, {"low", NULL, "#", ARI_CSV_LOOKUP, "@1.gradient.inclusive.edges"},
        {"count", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table ensemble_node_histogram[] = {
    {"bins", "counts[]", NULL, NULL, NULL, {
        {"bin", NULL, "#"}, {"low", NULL, "#", ARI_CSV_LOOKUP, "@0.edges"}, {"count", NULL, "."},
        {"target_count", NULL, "#", ARI_CSV_LOOKUP, "@0.target_counts"}, {NULL}}},
    {NULL}};

static const ari_csv_table ensemble_node_boxplots[] = {
    {"callsites", "callsites[]", NULL, NULL, NULL, {
        {"name", NULL, "name"}, {"count", NULL, "ensemble.count"}, {"min", NULL, "ensemble.min"},
        {"q1", NULL, "ensemble.q[1]"}, {"median", NULL, "ensemble.median"}, {"q3", NULL, "ensemble.q[3]"},
        {"max", NULL, "ensemble.max"}, {"mean", NULL, "ensemble.mean"}, {"var", NULL, "ensemble.var"},
        {"imb", NULL, "ensemble.imb"}, {"target_min", NULL, "target.min"}, {"target_median", NULL, "target.median"},
        {"target_max", NULL, "target.max"}, {NULL}}},
    {"outliers", "callsites[].ensemble.outliers.values[]", NULL, NULL, NULL, {
        {"name", NULL, "@1.name"}, {"value", NULL, "."},
        {"rank", NULL, "#", ARI_CSV_LOOKUP, "@1.ensemble.outliers.ranks"},
        {"trace_id", NULL, "#", ARI_CSV_LOOKUP, "@1.ensemble.outliers.runs"}, {NULL}}},
    {NULL}};

static const ari_csv_table ensemble_node_gradients[] = {
    {"bins", "inclusive.counts[]", NULL, NULL, NULL, {
        {"bin", NULL, "#"}, {"inc_low", NULL, "#", ARI_CSV_LOOKUP, "@0.inclusive.edges"}, {"inc_count", NULL, "."},
        {"exc_low", NULL, "#", ARI_CSV_LOOKUP, "@0.exclusive.edges"},
        {"exc_count", NULL, "#", ARI_CSV_LOOKUP, "@0.exclusive.counts"}, {NULL}}},
    {"runs", "run_means.*", NULL, NULL, NULL, {
        {"trace_id", NULL, "#"}, {"inclusive", NULL, "inclusive"}, {"exclusive", NULL, "exclusive"}, {NULL}}},
    {NULL}};

/* api_ensemble_hierarchy.c */
static const ari_csv_table ensemble_node_hierarchy[] = {
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"parent", NULL, "parent"}, {"depth", NULL, "depth"}, {"name", NULL, "name"},
        {"path", NULL, "path"}, {"present", NULL, "inclusive.present"}, {"inc_max", NULL, "inclusive.max"},
        {"inc_min", NULL, "inclusive.min"}, {"inc_mean", NULL, "inclusive.mean"}, {"exc_max", NULL, "exclusive.max"},
        {"exc_min", NULL, "exclusive.min"}, {"exc_mean", NULL, "exclusive.mean"},
        {"target_inc", NULL, "target.inclusive"}, {"target_exc", NULL, "target.exclusive"}, {NULL}}},
    {"values", "nodes[].inclusive.runs[]", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"path", NULL, "@1.path"},
        {"trace_id", NULL, "#", ARI_CSV_LOOKUP, "@0.runs", "trace_id"},
        {"run", NULL, "#", ARI_CSV_LOOKUP, "@0.runs", "name"}, {"inclusive", NULL, "."},
        {"exclusive", NULL, "#", ARI_CSV_LOOKUP, "@1.exclusive.runs"}, {NULL}}},
    {"gradient", "nodes[].gradient.inclusive.counts[]", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"path", NULL, "@1.path"}, {"bin", NULL, "#"},
        {"low", NULL, "#", ARI_CSV_LOOKUP, "@1.gradient.inclusive.edges"}, {"count", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table ensemble_diff[] = {
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"key", NULL, "key"}, {"name", NULL, "name"}, {"delta", NULL, "delta"},
        {"mean_baseline", NULL, "mean_baseline"}, {"mean_comparison", NULL, "mean_comparison"},
        {"rank_min", NULL, "ranks.min"}, {"rank_max", NULL, "ranks.max"}, {NULL}}},
    {"rank_histogram", "nodes[].ranks.counts[]", NULL, NULL, NULL, {
        {"node", NULL, "@1.id"}, {"bin", NULL, "#"}, {"count", NULL, "."}, {NULL}}},
    {NULL}};

/* api_ensemble_projection.c */
static const ari_csv_table ensemble_projection[] = {
    {"runs", "runs[]", NULL, NULL, NULL, {
        {"trace_id", NULL, "trace_id"}, {"name", NULL, "name"}, {"x", NULL, "x"}, {"y", NULL, "y"},
        {"cluster", NULL, "cluster"}, {NULL}}},
    {"parameters", "runs[].parameters.*", NULL, NULL, NULL, {
        {"trace_id", NULL, "@1.trace_id"}, {"name", NULL, "@1.name"}, {"parameter", NULL, "#"},
        {"value", NULL, "."}, {NULL}}},
    {"axes", "axes[]", NULL, NULL, NULL, {
        {"name", NULL, "name"}, {"explained", "fraction", "explained"}, {"label", NULL, "label"}, {NULL}}},
    {NULL}};

static const ari_csv_table ensemble_scatter[] = {
    {"points", "points[]", NULL, NULL, NULL, {
        {"node", NULL, "node"}, {"path", NULL, "node", ARI_CSV_LOOKUP, "@0.nodes", "path"},
        {"trace_id", NULL, "trace_id"}, {"run", NULL, "run", ARI_CSV_LOOKUP, "@0.runs", "name"},
        {"x", NULL, "x"}, {"y", NULL, "y"}, {NULL}}},
    {"nodes", "nodes[]", NULL, NULL, NULL, {
        {"id", NULL, "id"}, {"path", NULL, "path"}, {"name", NULL, "name"}, {"module", NULL, "module"},
        {"present", NULL, "present"}, {"n", NULL, "fit.n"}, {"r", NULL, "fit.r"}, {"r2", NULL, "fit.r2"},
        {"slope", NULL, "fit.slope"}, {"intercept", NULL, "fit.intercept"}, {NULL}}},
    {NULL}};

/* api_metrics_analysis.c, api_metrics_comm.c, api_analyses.c (issue 17):
 * the sampled-metrics analyses; entity ids are those of the selection.
 * The cluster tables, the projection's, the change points' and the
 * communication view's come back under "result" in /analyses/{id}. */
#define CLUSTER_ENTITIES(R) \
    {"entity", NULL, "."}, {"label", NULL, "#", ARI_CSV_LOOKUP, R "labels"}, {NULL}
#define CLUSTER_CENTERS {"cluster", NULL, "@1#"}, {"index", NULL, "#"}, {"value", NULL, "."}, {NULL}
#define CLUSTER_MEDOIDS {"cluster", NULL, "#"}, {"entity", NULL, "."}, {NULL}
#define CLUSTER_MERGES(R)                                                                                  \
    {"step", NULL, "#"}, {"a", NULL, "[0]"}, {"b", NULL, "[1]"},                                           \
        {"height", NULL, "#", ARI_CSV_LOOKUP, R "dendrogram.height"}, {NULL}
#define PROJECTION_POINTS(R) \
    {"entity", NULL, "#", ARI_CSV_LOOKUP, R "entities"}, {"x", NULL, "[0]"}, {"y", NULL, "[1]"}, {NULL}
#define CPD_SEGMENTS {"label", NULL, "label"}, {"i0", NULL, "i0"}, {"i1", NULL, "i1"}, {"t0", NULL, "t0"}, \
        {"t1", NULL, "t1"}, {NULL}
#define CPD_POINTS(R)                                                                                      \
    {"index", NULL, "."}, {"time", NULL, "#", ARI_CSV_LOOKUP, R "times"},                                  \
        {"p_value", NULL, "#", ARI_CSV_LOOKUP, R "p_values"},                                              \
        {"statistic", NULL, "#", ARI_CSV_LOOKUP, R "statistics"}, {NULL}
#define COMM_MATRIX(R)                                                                                     \
    {"segment", NULL, "@1#"}, {"t0", NULL, "@1.t0"}, {"t1", NULL, "@1.t1"},                                \
        {"source", NULL, "@2#", ARI_CSV_LOOKUP, R "entities", "id"},                                       \
        {"source_name", NULL, "@2#", ARI_CSV_LOOKUP, R "entities", "name"},                                \
        {"target", NULL, "@3#", ARI_CSV_LOOKUP, R "entities", "id"},                                       \
        {"target_name", NULL, "@3#", ARI_CSV_LOOKUP, R "entities", "name"}, {"value", NULL, "."}, {NULL}
#define COMM_RINGS(R)                                                                                      \
    {"segment", NULL, "@1#"}, {"t0", NULL, "@1.t0"}, {"t1", NULL, "@1.t1"},                                \
        {"entity", NULL, "#", ARI_CSV_LOOKUP, R "ring_entities"}, {"metric", NULL, "@2#"},                 \
        {"value", NULL, "."}, {NULL}

static const ari_csv_table metrics_cluster[] = {
    {"entities", "entities[]", NULL, NULL, NULL, {CLUSTER_ENTITIES("@0.")}},
    {"centers", "centers[][]", NULL, NULL, NULL, {CLUSTER_CENTERS}},
    {"medoids", "medoids[]", NULL, NULL, NULL, {CLUSTER_MEDOIDS}},
    {"merges", "dendrogram.merge[]", NULL, NULL, NULL, {CLUSTER_MERGES("@0.")}},
    {NULL}};

static const ari_csv_table metrics_projection[] = {
    {"points", "xy[]", NULL, NULL, NULL, {PROJECTION_POINTS("@0.")}},
    {NULL}};

static const ari_csv_table metrics_changepoints[] = {
    {"segments", "segments[]", NULL, NULL, NULL, {CPD_SEGMENTS}},
    {"change_points", "change_points[]", NULL, NULL, NULL, {CPD_POINTS("@0.")}},
    {NULL}};

static const ari_csv_table metrics_comm[] = {
    {"matrix", "segments[].matrix[][]", NULL, NULL, NULL, {COMM_MATRIX("@0.")}},
    {"rings", "segments[].rings.*[]", NULL, NULL, NULL, {COMM_RINGS("@0.")}},
    {NULL}};

/* A run's document: the tables of its kind, under "result"; the first
 * with rows is the default, so each kind's main table comes first. */
#define KIND "@0.analysis.kind"
static const ari_csv_table analyses[] = {
    {"entities", "result.entities[]", NULL, KIND, "cluster", {CLUSTER_ENTITIES("@0.result.")}},
    {"points", "result.xy[]", NULL, KIND, "projection", {PROJECTION_POINTS("@0.result.")}},
    {"segments", "result.segments[]", NULL, KIND, "changepoints", {CPD_SEGMENTS}},
    {"matrix", "result.segments[].matrix[][]", NULL, KIND, "comm_segments", {COMM_MATRIX("@0.result.")}},
    {"centers", "result.centers[][]", NULL, KIND, "cluster", {CLUSTER_CENTERS}},
    {"medoids", "result.medoids[]", NULL, KIND, "cluster", {CLUSTER_MEDOIDS}},
    {"merges", "result.dendrogram.merge[]", NULL, KIND, "cluster", {CLUSTER_MERGES("@0.result.")}},
    {"change_points", "result.change_points[]", NULL, KIND, "changepoints", {CPD_POINTS("@0.result.")}},
    {"rings", "result.segments[].rings.*[]", NULL, KIND, "comm_segments", {COMM_RINGS("@0.result.")}},
    {NULL}};
#undef KIND

/* api_metrics.c: GET /overview (GET /series has a format of its own). */
static const ari_csv_table metrics_overview[] = {
    {"points", "time[]", NULL, NULL, NULL, {
        {"time", NULL, "."}, {"value", NULL, "#", ARI_CSV_LOOKUP, "@0.value"}, {NULL}}},
    {NULL}};

/* api_stream_events.c (issue 18): a live run's communication matrices. */
static const ari_csv_table live_comm[] = {
    {"matrix", "matrix[][]", NULL, NULL, NULL, {
        {"t_idx", NULL, "@0.t_idx"}, {"source", NULL, "@1#", ARI_CSV_LOOKUP, "@0.ids"},
        {"source_name", NULL, "@1#", ARI_CSV_LOOKUP, "@0.names"}, {"target", NULL, "#", ARI_CSV_LOOKUP, "@0.ids"},
        {"target_name", NULL, "#", ARI_CSV_LOOKUP, "@0.names"}, {"value", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table live_comm_diff[] = {
    {"diffs", "diffs[].matrix[][]", NULL, NULL, NULL, {
        {"base", NULL, "@0.base"}, {"t_idx", NULL, "@1.t_idx"}, {"source", NULL, "@2#", ARI_CSV_LOOKUP, "@0.ids"},
        {"source_name", NULL, "@2#", ARI_CSV_LOOKUP, "@0.names"}, {"target", NULL, "#", ARI_CSV_LOOKUP, "@0.ids"},
        {"target_name", NULL, "#", ARI_CSV_LOOKUP, "@0.names"}, {"value", NULL, "."}, {NULL}}},
    {NULL}};

/* api_event_comm.c, api_event_timeline.c (issue 19): an event trace's
 * communication analyses and its timeline with messages. */
static const ari_csv_table event_messages[] = {
    {"messages", "messages[]", "ns", NULL, NULL, {
        {"src_rank", NULL, "src_rank"}, {"src_thread", NULL, "src_thread"}, {"dst_rank", NULL, "dst_rank"},
        {"dst_thread", NULL, "dst_thread"}, {"tag", NULL, "tag"}, {"comm", NULL, "comm"},
        {"bytes", "B", "bytes"}, {"send_time", MS, "send_time"}, {"recv_time", MS, "recv_time"},
        {"duration", MS, "recv_time", ARI_CSV_DIFF, "send_time"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_comm_matrix[] = {
    {"cells", "cells[]", "ns", NULL, NULL, {
        {"sender", NULL, "[0]"}, {"receiver", NULL, "[1]"}, {"value", NULL, "[2]"}, {"kind", NULL, "@0.kind"},
        {NULL}}},
    {"processes", "processes[]", "ns", NULL, NULL, {
        {"rank", NULL, "rank"}, {"sent_bytes", "B", "sent_bytes"}, {"sent_count", NULL, "sent_count"},
        {"received_bytes", "B", "received_bytes"}, {"received_count", NULL, "received_count"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_message_histogram[] = {
    {"bins", "counts[]", "ns", NULL, NULL, {
        {"bin", NULL, "#"}, {"lower", "B", "#", ARI_CSV_LOOKUP, "@0.edges"}, {"count", NULL, "."}, {NULL}}},
    {NULL}};

static const ari_csv_table event_comm_over_time[] = {
    {"bins", "values[]", "ns", NULL, NULL, {
        {"bin", NULL, "#"}, {"start", MS, "#", ARI_CSV_LOOKUP, "@0.edges"}, {"value", NULL, "."},
        {"kind", NULL, "@0.kind"}, {"side", NULL, "@0.side"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_wait_states[] = {
    {"pairs", "pairs[]", "ns", NULL, NULL, {
        {"sender", NULL, "sender"}, {"receiver", NULL, "receiver"},
        {"late_sender_count", NULL, "late_sender_count"}, {"late_sender_time", MS, "late_sender_time"},
        {"late_receiver_count", NULL, "late_receiver_count"}, {"late_receiver_time", MS, "late_receiver_time"},
        {NULL}}},
    {"ranks", "ranks[]", "ns", NULL, NULL, {
        {"rank", NULL, "rank"}, {"late_sender_count", NULL, "late_sender_count"},
        {"late_sender_time", MS, "late_sender_time"}, {"late_receiver_count", NULL, "late_receiver_count"},
        {"late_receiver_time", MS, "late_receiver_time"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_timeline[] = {
    {"messages", "messages[]", "ns", NULL, NULL, {
        {"src", NULL, "src"}, {"dst", NULL, "dst"}, {"send", MS, "send"}, {"recv", MS, "recv"},
        {"bytes", "B", "bytes"}, {"count", NULL, "count"}, {NULL}}},
    {"states", "rows[].states[]", "ns", "@1.mode", "states", {
        {"container", NULL, "@1.name"}, {"container_id", NULL, "@1.container_id"}, {"path", NULL, "@1.path"},
        {"state_type", NULL, "@1.type"}, {"value", NULL, "[0]", ARI_CSV_LOOKUP, "@0.values", "name"},
        {"depth", NULL, "[1]"}, {"start", MS, "[2]"}, {"end", MS, "[3]"},
        {"duration", MS, "[3]", ARI_CSV_DIFF, "[2]"}, {NULL}}},
    {"pixels", "rows[].states[]", "ns", "@1.mode", "pixels", {
        {"container", NULL, "@1.name"}, {"container_id", NULL, "@1.container_id"}, {"path", NULL, "@1.path"},
        {"state_type", NULL, "@1.type"}, {"pixel", NULL, "[0]"}, {"depth", NULL, "[1]"},
        {"value", NULL, "[2]", ARI_CSV_LOOKUP, "@0.values", "name"}, {"share", "fraction", "[3]"}, {NULL}}},
    {NULL}};

/* api_event_profile.c (issue 19): an event trace's function analyses. */
static const ari_csv_table event_flat_profile[] = {
    {"functions", "functions[]", "ns", NULL, NULL, {
        {"name", NULL, "name"}, {"inclusive", MS, "inclusive"}, {"exclusive", MS, "exclusive"},
        {"count", NULL, "count"}, {"processes", NULL, "processes"}, {"mean_inclusive", MS, "mean_inclusive"},
        {"mean_exclusive", MS, "mean_exclusive"}, {NULL}}},
    {"rows", "rows[]", "ns", NULL, NULL, {
        {"rank", NULL, "rank"}, {"thread", NULL, "thread"}, {"name", NULL, "name"},
        {"inclusive", MS, "inclusive"}, {"exclusive", MS, "exclusive"}, {"count", NULL, "count"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_time_profile[] = {
    {"values", "series[].values[]", "ns", NULL, NULL, {
        {"name", NULL, "@1.name"}, {"bin", NULL, "#"}, {"start", MS, "#", ARI_CSV_LOOKUP, "@0.edges"},
        {"value", NULL, "."}, {"normalized", NULL, "@0.normalized"}, {NULL}}},
    {"idle", "idle[]", "ns", NULL, NULL, {
        {"bin", NULL, "#"}, {"start", MS, "#", ARI_CSV_LOOKUP, "@0.edges"}, {"idle", NULL, "."},
        {"normalized", NULL, "@0.normalized"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_load_imbalance[] = {
    {"functions", "functions[]", "ns", NULL, NULL, {
        {"name", NULL, "name"}, {"metric", NULL, "@0.metric"}, {"mean", MS, "mean"}, {"max", MS, "max"},
        {"imbalance", NULL, "imbalance"}, {"top_ranks", NULL, "top_ranks"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_idle_time[] = {
    {"ranks", "ranks[]", "ns", NULL, NULL, {
        {"rank", NULL, "rank"}, {"thread", NULL, "thread"}, {"idle", MS, "idle"}, {"total", MS, "total"},
        {"share", "fraction", "share"}, {NULL}}},
    {NULL}};

static const ari_csv_table event_caller_callee[] = {
    {"pairs", "pairs[]", "ns", NULL, NULL, {
        {"caller", NULL, "caller"}, {"callee", NULL, "callee"}, {"count", NULL, "count"},
        {"inclusive", MS, "inclusive"}, {NULL}}},
    {NULL}};

static const ari_csv_view views[] = {
    {"/api/v1/streams/{}/comm", "live_comm", live_comm},
    {"/api/v1/streams/{}/comm/diff", "live_comm_diff", live_comm_diff},
    {"/api/v1/traces/{}/gantt", "gantt", gantt},
    {"/api/v1/traces/{}/states", "states", states},
    {"/api/v1/traces/{}/links", "links", links},
    {"/api/v1/traces/{}/panels", "panels", panels},
    {"/api/v1/traces/{}/bounds", "bounds", bounds},
    {"/api/v1/traces/{}/outliers", "outliers", outliers},
    {"/api/v1/traces/{}/critical-path", "critical_path", critical_path},
    {"/api/v1/compare", "compare", compare},
    {"/api/v1/traces/{}/progression", "progression", progression},
    {"/api/v1/traces/{}/timeseries", "timeseries", timeseries},
    {"/api/v1/traces/{}/iterations", "iterations", iterations},
    {"/api/v1/traces/{}/anomalies", "anomalies", anomalies},
    {"/api/v1/traces/{}/models", "models", models},
    {"/api/v1/traces/{}/atree", "atree", atree},
    {"/api/v1/traces/{}/tree-utilization", "tree_utilization", tree_utilization},
    {"/api/v1/traces/{}/tree-memory", "tree_memory", tree_memory},
    {"/api/v1/traces/{}/tree-compare", "tree_compare", tree_compare},
    {"/api/v1/traces/{}/aggregation", "aggregation", aggregation},
    {"/api/v1/traces/{}/aggregation/levels", "aggregation_levels", aggregation_levels},
    {"/api/v1/traces/{}/cct", "cct", cct},
    {"/api/v1/traces/{}/nodes/{}/ranks", "ranks", ranks},
    {"/api/v1/traces/{}/scatter", "scatter", scatter},
    {"/api/v1/traces/{}/supergraph", "supergraph", supergraph},
    {"/api/v1/traces/{}/movements", "movements", movements},
    {"/api/v1/traces/{}/movement-matrix", "movement_matrix", movement_matrix},
    {"/api/v1/traces/{}/movement-timeline", "movement_timeline", movement_timeline},
    {"/api/v1/traces/{}/clock", "clock", clock},
    {"/api/v1/traces/{}/topology", "topology", topology},
    {"/api/v1/traces/{}/metric-series", "metric_series", metric_series},
    {"/api/v1/ensembles/{}/stats", "ensemble_stats", ensemble_stats},
    {"/api/v1/ensembles/{}/scaling", "ensemble_scaling", ensemble_scaling},
    {"/api/v1/ensembles/{}/supergraph", "ensemble_supergraph", ensemble_supergraph},
    {"/api/v1/ensembles/{}/nodes/{}/histogram", "ensemble_node_histogram", ensemble_node_histogram},
    {"/api/v1/ensembles/{}/nodes/{}/boxplots", "ensemble_node_boxplots", ensemble_node_boxplots},
    {"/api/v1/ensembles/{}/nodes/{}/gradients", "ensemble_node_gradients", ensemble_node_gradients},
    {"/api/v1/ensembles/{}/nodes/{}/hierarchy", "ensemble_node_hierarchy", ensemble_node_hierarchy},
    {"/api/v1/ensembles/{}/diff", "ensemble_diff", ensemble_diff},
    {"/api/v1/ensembles/{}/projection", "ensemble_projection", ensemble_projection},
    {"/api/v1/ensembles/{}/scatter", "ensemble_scatter", ensemble_scatter},
    {"/api/v1/traces/{}/cluster", "cluster", metrics_cluster},
    {"/api/v1/traces/{}/projection", "projection", metrics_projection},
    {"/api/v1/traces/{}/changepoints", "changepoints", metrics_changepoints},
    {"/api/v1/traces/{}/comm/segments", "comm_segments", metrics_comm},
    {"/api/v1/analyses/{}", "analysis", analyses},
    {"/api/v1/traces/{}/overview", "overview", metrics_overview},
    {"/api/v1/traces/{}/messages", "messages", event_messages},
    {"/api/v1/traces/{}/comm-matrix", "comm_matrix", event_comm_matrix},
    {"/api/v1/traces/{}/message-histogram", "message_histogram", event_message_histogram},
    {"/api/v1/traces/{}/comm-over-time", "comm_over_time", event_comm_over_time},
    {"/api/v1/traces/{}/wait-states", "wait_states", event_wait_states},
    {"/api/v1/traces/{}/timeline", "timeline", event_timeline},
    {"/api/v1/traces/{}/flat-profile", "flat_profile", event_flat_profile},
    {"/api/v1/traces/{}/time-profile", "time_profile", event_time_profile},
    {"/api/v1/traces/{}/load-imbalance", "load_imbalance", event_load_imbalance},
    {"/api/v1/traces/{}/idle-time", "idle_time", event_idle_time},
    {"/api/v1/traces/{}/caller-callee", "caller_callee", event_caller_callee},
};
// clang-format on

const ari_csv_view *ari_csv_views(size_t *n)
{
    *n = sizeof views / sizeof views[0];
    return views;
}

const ari_csv_view *ari_csv_view_find(const char *pattern)
{
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        if (strcmp(views[i].pattern, pattern) == 0)
            return &views[i];
    return NULL;
}

const ari_csv_table *ari_csv_table_find(const ari_csv_view *v, const char *name)
{
    for (const ari_csv_table *t = v->tables; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}
