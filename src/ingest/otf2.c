/* otf2.c: the OTF2 reader (Score-P traces) through libotf2: the anchor
 * probe, the global definitions into bounded id tables, the counts per
 * definition type, the system tree above the location groups (machine >
 * node, when the sink keeps one) and each location's events into an
 * ari_event_sink (see otf2.h). libotf2 does the decoding; this file checks every
 * reference an event makes against the definitions before using it.
 */
#include "ingest/otf2.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "util/sbuf.h"
#include "util/vec.h"

/* ---- id maps: OTF2 reference -> index into a table ---------------------- */

typedef struct idmap {
    uint64_t *keys;
    uint32_t *vals; /* index + 1; 0 is an empty slot */
    size_t cap, n;
} idmap;

static uint64_t id_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

/* The index stored under key, or -1. */
static int64_t idmap_get(const idmap *m, uint64_t key)
{
    if (!m->cap)
        return -1;
    for (size_t i = id_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->vals[i])
            return -1;
        if (m->keys[i] == key)
            return (int64_t)m->vals[i] - 1;
    }
}

static int idmap_grow(idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    idmap g = {calloc(cap, sizeof *g.keys), calloc(cap, sizeof *g.vals), cap, m->n};
    if (!g.keys || !g.vals) {
        free(g.keys), free(g.vals);
        return -1;
    }
    for (size_t j = 0; j < m->cap; j++) {
        if (!m->vals[j])
            continue;
        size_t i = id_hash(m->keys[j]) & (cap - 1);
        while (g.vals[i])
            i = (i + 1) & (cap - 1);
        g.keys[i] = m->keys[j], g.vals[i] = m->vals[j];
    }
    free(m->keys), free(m->vals);
    *m = g;
    return 0;
}

/* Stores key -> index (a redefinition replaces the old index). 0 or -1. */
static int idmap_put(idmap *m, uint64_t key, uint32_t index)
{
    if ((m->n + 1) * 2 > m->cap && idmap_grow(m) < 0)
        return -1;
    size_t i = id_hash(key) & (m->cap - 1);
    while (m->vals[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->vals[i])
        m->n++;
    m->keys[i] = key, m->vals[i] = index + 1;
    return 0;
}

static void idmap_free(idmap *m)
{
    free(m->keys), free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- definitions ------------------------------------------------------ */

/* The definition types counted into the "definitions" note, by the names
 * of OTF2's records (Pipit's "Definition Type" column). */
enum {
    D_CLOCK, D_PARADIGM, D_PARADIGM_PROPERTY, D_IO_PARADIGM, D_STRING, D_ATTRIBUTE, D_STN,
    D_LOCATION_GROUP, D_LOCATION, D_REGION, D_CALLSITE, D_CALLPATH, D_GROUP, D_METRIC_MEMBER,
    D_METRIC_CLASS, D_METRIC_INSTANCE, D_COMM, D_PARAMETER, D_RMA_WIN, D_METRIC_CLASS_RECORDER,
    D_STN_PROPERTY, D_STN_DOMAIN, D_LOCATION_GROUP_PROPERTY, D_LOCATION_PROPERTY, D_CART_DIMENSION,
    D_CART_TOPOLOGY, D_CART_COORDINATE, D_SOURCE_CODE_LOCATION, D_CALLING_CONTEXT,
    D_CALLING_CONTEXT_PROPERTY, D_INTERRUPT_GENERATOR, D_IO_FILE_PROPERTY, D_IO_REGULAR_FILE,
    D_IO_DIRECTORY, D_IO_HANDLE, D_IO_PRE_CREATED_HANDLE_STATE, D_CALLPATH_PARAMETER, D_INTER_COMM,
    D_NTYPES
};

static const char *const def_names[D_NTYPES] = {
    "ClockProperties", "Paradigm", "ParadigmProperty", "IoParadigm", "String", "Attribute",
    "SystemTreeNode", "LocationGroup", "Location", "Region", "Callsite", "Callpath", "Group",
    "MetricMember", "MetricClass", "MetricInstance", "Comm", "Parameter", "RmaWin",
    "MetricClassRecorder", "SystemTreeNodeProperty", "SystemTreeNodeDomain", "LocationGroupProperty",
    "LocationProperty", "CartDimension", "CartTopology", "CartCoordinate", "SourceCodeLocation",
    "CallingContext", "CallingContextProperty", "InterruptGenerator", "IoFileProperty",
    "IoRegularFile", "IoDirectory", "IoHandle", "IoPreCreatedHandleState", "CallpathParameter",
    "InterComm"};

typedef struct o2_region {
    uint32_t name, file, line;
    int role, paradigm;
    int64_t handle; /* the sink's, made on first use; -1 before */
} o2_region;

typedef struct o2_stn {
    uint32_t name, cls, parent; /* parent: OTF2_UNDEFINED_SYSTEM_TREE_NODE for a root */
    int64_t handle;             /* the sink's, made on first use; -1 before */
} o2_stn;

#define O2_MAX_TREE_DEPTH 64 /* system-tree levels followed up from a location group */

typedef struct o2_lgroup {
    uint32_t name;
    uint32_t parent; /* its system-tree node */
    uint64_t id;
    int64_t handle; /* the sink's process, -1 before */
} o2_lgroup;

typedef struct o2_location {
    uint64_t id;
    uint32_t name, group;
    uint64_t nevents; /* as the definition says */
    int64_t handle;   /* the sink's location */
    int64_t rank;     /* its location group's id */
    double last;      /* last event time, ns */
    uint64_t seen;    /* events read */
    double coll_begin; /* time of a pending MpiCollectiveBegin */
    int coll_open;
} o2_location;

typedef struct o2_group {
    int type, paradigm;
    uint32_t n;
    uint64_t *members;
} o2_group;

typedef struct o2_comm {
    uint32_t name, group;
    int64_t handle; /* -1 until first use */
} o2_comm;

typedef struct o2_member {
    uint32_t name, unit;
} o2_member;

typedef struct o2_metric {
    uint8_t n;
    uint32_t members[256]; /* member refs; a class or an instance's class */
    int is_instance;
    uint32_t class_ref;
} o2_metric;

#define O2_TABLE(T, name) \
    T *name;              \
    size_t n_##name, cap_##name;

typedef struct o2_state {
    const ari_event_sink *k;
    ari_error *err;
    const char *def_name;  /* "traces.def" for messages */
    char evt_name[96];     /* "traces/0.evt" of the location being read */
    int failed;            /* a callback stopped the read (err or the sink's) */
    size_t ndefs, nmembers;
    uint64_t counts[D_NTYPES];
    uint64_t resolution, offset, length;
    int have_clock;
    idmap stn_ids;
    O2_TABLE(o2_stn, stns)
    idmap string_ids, region_ids, lgroup_ids, location_ids, group_ids, comm_ids, member_ids, metric_ids;
    O2_TABLE(char *, strings)
    O2_TABLE(o2_region, regions)
    O2_TABLE(o2_lgroup, lgroups)
    O2_TABLE(o2_location, locations)
    O2_TABLE(o2_group, groups)
    O2_TABLE(o2_comm, comms)
    O2_TABLE(o2_member, members)
    O2_TABLE(o2_metric, metrics)
    o2_location *cur; /* the location whose events are being read */
    uint64_t done_events, total_events;
} o2_state;

/* libotf2 reports errors through one process-wide callback: the last
 * message of this thread is kept for our own error. */
static _Thread_local char otf2_last_error[512];

static OTF2_ErrorCode on_otf2_error(void *u, const char *file, uint64_t line, const char *function,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)u, (void)file, (void)line, (void)function;
    vsnprintf(otf2_last_error, sizeof otf2_last_error, fmt, va);
    return code;
}

/* Sets err to "what: libotf2's reason" and returns -1. */
static int lib_error(o2_state *s, const char *what, OTF2_ErrorCode code)
{
    const char *why = otf2_last_error[0] ? otf2_last_error : OTF2_Error_GetDescription(code);
    return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: %s (%s)", what, why ? why : "error",
                         OTF2_Error_GetName(code));
}

/* Records our own error and returns the code that stops libotf2. */
static OTF2_CallbackCode stop(o2_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static OTF2_CallbackCode stop(o2_state *s, const char *fmt, ...)
{
    char msg[600];
    va_list va;
    va_start(va, fmt);
    vsnprintf(msg, sizeof msg, fmt, va);
    va_end(va);
    ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s", msg);
    s->failed = 1;
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode nomem(o2_state *s)
{
    ari_error_set(s->err, ARI_E_NOMEM, "%s: out of memory", s->def_name);
    s->failed = 1;
    return OTF2_CALLBACK_INTERRUPT;
}

/* The sink said no: its error stays. */
static OTF2_CallbackCode sink_stop(o2_state *s)
{
    s->failed = 1;
    return OTF2_CALLBACK_INTERRUPT;
}

/* Counts one definition of a type; stops past ARI_OTF2_MAX_DEFS. */
static OTF2_CallbackCode count_def(o2_state *s, int type)
{
    s->counts[type]++;
    if (++s->ndefs > ARI_OTF2_MAX_DEFS)
        return stop(s, "%s: more than %zu definitions", s->def_name, ARI_OTF2_MAX_DEFS);
    return OTF2_CALLBACK_SUCCESS;
}

/* Makes room for one more row of a table and maps id to it; the row's
 * index, or -1 when out of memory. */
static int64_t table_add(void **rows, size_t *n, size_t *cap, size_t size, idmap *ids, uint64_t id)
{
    if (*n >= UINT32_MAX - 1 || ari_vec_reserve(rows, cap, *n + 1, size) < 0 || idmap_put(ids, id, (uint32_t)*n) < 0)
        return -1;
    memset((char *)*rows + *n * size, 0, size);
    return (int64_t)(*n)++;
}
/* A row for a definition that may not come twice: stops on a second
 * definition of id ("<what> <id> defined twice") or out of memory; else
 * *row is the new, zeroed row's index. */
static OTF2_CallbackCode add_unique(o2_state *s, const char *what, void **rows, size_t *n, size_t *cap, size_t size,
                                    idmap *ids, uint64_t id, int64_t *row)
{
    if (idmap_get(ids, id) >= 0)
        return stop(s, "%s: %s %llu defined twice", s->def_name, what, (unsigned long long)id);
    if ((*row = table_add(rows, n, cap, size, ids, id)) < 0)
        return nomem(s);
    return OTF2_CALLBACK_SUCCESS;
}

/* The string of a reference, or NULL when undefined. */
static const char *str_of(const o2_state *s, uint32_t ref)
{
    int64_t i = ref == OTF2_UNDEFINED_STRING ? -1 : idmap_get(&s->string_ids, ref);
    return i < 0 ? NULL : s->strings[i];
}

/* ---- global definition callbacks that keep something ------------------ */

static OTF2_CallbackCode def_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length,
                                   uint64_t realtime)
{
    o2_state *s = u;
    (void)realtime;
    s->resolution = resolution, s->offset = offset, s->length = length;
    s->have_clock = 1;
    return count_def(s, D_CLOCK);
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *string)
{
    o2_state *s = u;
    if (count_def(s, D_STRING) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    char *copy = strdup(string ? string : "");
    int64_t i = idmap_get(&s->string_ids, self);
    if (copy && i >= 0) { /* a redefinition replaces */
        free(s->strings[i]);
        s->strings[i] = copy;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!copy || (i = table_add((void **)&s->strings, &s->n_strings, &s->cap_strings, sizeof *s->strings,
            &s->string_ids, self)) < 0) {
        free(copy);
        return nomem(s);
    }
    s->strings[i] = copy;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    o2_state *s = u;
    (void)canonical, (void)description, (void)flags, (void)end;
    if (count_def(s, D_REGION) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = idmap_get(&s->region_ids, self);
    if (i < 0 && (i = table_add((void **)&s->regions, &s->n_regions, &s->cap_regions, sizeof *s->regions,
            &s->region_ids, self)) < 0)
        return nomem(s);
    s->regions[i] = (o2_region){name, file, begin, role, paradigm, -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator)
{
    o2_state *s = u;
    (void)type, (void)creator;
    if (count_def(s, D_LOCATION_GROUP) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = -1;
    if (add_unique(s, "location group", (void **)&s->lgroups, &s->n_lgroups, &s->cap_lgroups, sizeof *s->lgroups,
            &s->lgroup_ids, self, &i) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    s->lgroups[i] = (o2_lgroup){name, parent, self, -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_stn(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                 OTF2_SystemTreeNodeRef parent)
{
    o2_state *s = u;
    if (count_def(s, D_STN) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = -1;
    if (add_unique(s, "system-tree node", (void **)&s->stns, &s->n_stns, &s->cap_stns, sizeof *s->stns,
            &s->stn_ids, self, &i) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    s->stns[i] = (o2_stn){name, cls, parent, -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    o2_state *s = u;
    (void)type;
    if (count_def(s, D_LOCATION) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = -1;
    if (add_unique(s, "location", (void **)&s->locations, &s->n_locations, &s->cap_locations, sizeof *s->locations,
            &s->location_ids, self, &i) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    s->locations[i] = (o2_location){.id = self, .name = name, .group = group, .nevents = nevents, .handle = -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    o2_state *s = u;
    (void)name, (void)flags;
    if (count_def(s, D_GROUP) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = -1;
    if (add_unique(s, "group", (void **)&s->groups, &s->n_groups, &s->cap_groups, sizeof *s->groups, &s->group_ids,
                   self, &i) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    if ((s->nmembers += n) > ARI_OTF2_MAX_MEMBERS)
        return stop(s, "%s: more than %zu group members", s->def_name, ARI_OTF2_MAX_MEMBERS);
    uint64_t *copy = n ? malloc((size_t)n * sizeof *copy) : NULL;
    if (n && !copy)
        return nomem(s);
    if (n)
        memcpy(copy, members, (size_t)n * sizeof *copy);
    s->groups[i] = (o2_group){type, paradigm, n, copy};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    o2_state *s = u;
    (void)parent, (void)flags;
    if (count_def(s, D_COMM) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = -1;
    if (add_unique(s, "communicator", (void **)&s->comms, &s->n_comms, &s->cap_comms, sizeof *s->comms,
            &s->comm_ids, self, &i) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    s->comms[i] = (o2_comm){name, group, -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                    OTF2_StringRef description, OTF2_MetricType type, OTF2_MetricMode mode,
                                    OTF2_Type value_type, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    o2_state *s = u;
    (void)description, (void)type, (void)mode, (void)value_type, (void)base, (void)exponent;
    if (count_def(s, D_METRIC_MEMBER) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t i = idmap_get(&s->member_ids, self);
    if (i < 0 && (i = table_add((void **)&s->members, &s->n_members, &s->cap_members, sizeof *s->members,
            &s->member_ids, self)) < 0)
        return nomem(s);
    s->members[i] = (o2_member){name, unit};
    return OTF2_CALLBACK_SUCCESS;
}

/* Metric classes and instances share one id space (OTF2_MetricRef). */
static OTF2_CallbackCode add_metric(o2_state *s, uint32_t self, o2_metric m)
{
    int64_t i = -1;
    if (add_unique(s, "metric", (void **)&s->metrics, &s->n_metrics, &s->cap_metrics, sizeof *s->metrics,
            &s->metric_ids, self, &i) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    s->metrics[i] = m;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_metric_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                          OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
    o2_state *s = u;
    (void)occurrence, (void)kind;
    if (count_def(s, D_METRIC_CLASS) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    o2_metric m = {.n = n};
    for (unsigned j = 0; j < n; j++)
        m.members[j] = members[j];
    return add_metric(s, self, m);
}

static OTF2_CallbackCode def_metric_instance(void *u, OTF2_MetricRef self, OTF2_MetricRef metric_class,
                                             OTF2_LocationRef recorder, OTF2_MetricScope scope_type, uint64_t scope)
{
    o2_state *s = u;
    (void)recorder, (void)scope_type, (void)scope;
    if (count_def(s, D_METRIC_INSTANCE) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    return add_metric(s, self, (o2_metric){.is_instance = 1, .class_ref = metric_class});
}

/* ---- global definitions that are only counted ------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define COUNTER(fn, type, ...)                                 \
    static OTF2_CallbackCode fn(void *u, __VA_ARGS__)          \
    {                                                          \
        return count_def(u, type);                             \
    }
COUNTER(cnt_paradigm, D_PARADIGM, OTF2_Paradigm a, OTF2_StringRef b, OTF2_ParadigmClass c)
COUNTER(cnt_paradigm_property, D_PARADIGM_PROPERTY, OTF2_Paradigm a, OTF2_ParadigmProperty b, OTF2_Type c,
        OTF2_AttributeValue d)
COUNTER(cnt_io_paradigm, D_IO_PARADIGM, OTF2_IoParadigmRef a, OTF2_StringRef b, OTF2_StringRef c,
        OTF2_IoParadigmClass d, OTF2_IoParadigmFlag e, uint8_t f, const OTF2_IoParadigmProperty *g,
        const OTF2_Type *h, const OTF2_AttributeValue *i)
COUNTER(cnt_attribute, D_ATTRIBUTE, OTF2_AttributeRef a, OTF2_StringRef b, OTF2_StringRef c, OTF2_Type d)
COUNTER(cnt_callsite, D_CALLSITE, OTF2_CallsiteRef a, OTF2_StringRef b, uint32_t c, OTF2_RegionRef d,
        OTF2_RegionRef e)
COUNTER(cnt_callpath, D_CALLPATH, OTF2_CallpathRef a, OTF2_CallpathRef b, OTF2_RegionRef c)
COUNTER(cnt_parameter, D_PARAMETER, OTF2_ParameterRef a, OTF2_StringRef b, OTF2_ParameterType c)
COUNTER(cnt_rma_win, D_RMA_WIN, OTF2_RmaWinRef a, OTF2_StringRef b, OTF2_CommRef c, OTF2_RmaWinFlag d)
COUNTER(cnt_metric_class_recorder, D_METRIC_CLASS_RECORDER, OTF2_MetricRef a, OTF2_LocationRef b)
COUNTER(cnt_stn_property, D_STN_PROPERTY, OTF2_SystemTreeNodeRef a, OTF2_StringRef b, OTF2_Type c,
        OTF2_AttributeValue d)
COUNTER(cnt_stn_domain, D_STN_DOMAIN, OTF2_SystemTreeNodeRef a, OTF2_SystemTreeDomain b)
COUNTER(cnt_lgroup_property, D_LOCATION_GROUP_PROPERTY, OTF2_LocationGroupRef a, OTF2_StringRef b, OTF2_Type c,
        OTF2_AttributeValue d)
COUNTER(cnt_location_property, D_LOCATION_PROPERTY, OTF2_LocationRef a, OTF2_StringRef b, OTF2_Type c,
        OTF2_AttributeValue d)
COUNTER(cnt_cart_dimension, D_CART_DIMENSION, OTF2_CartDimensionRef a, OTF2_StringRef b, uint32_t c,
        OTF2_CartPeriodicity d)
COUNTER(cnt_cart_topology, D_CART_TOPOLOGY, OTF2_CartTopologyRef a, OTF2_StringRef b, OTF2_CommRef c, uint8_t d,
        const OTF2_CartDimensionRef *e)
COUNTER(cnt_cart_coordinate, D_CART_COORDINATE, OTF2_CartTopologyRef a, uint32_t b, uint8_t c, const uint32_t *d)
COUNTER(cnt_source_code_location, D_SOURCE_CODE_LOCATION, OTF2_SourceCodeLocationRef a, OTF2_StringRef b,
        uint32_t c)
COUNTER(cnt_calling_context, D_CALLING_CONTEXT, OTF2_CallingContextRef a, OTF2_RegionRef b,
        OTF2_SourceCodeLocationRef c, OTF2_CallingContextRef d)
COUNTER(cnt_calling_context_property, D_CALLING_CONTEXT_PROPERTY, OTF2_CallingContextRef a, OTF2_StringRef b,
        OTF2_Type c, OTF2_AttributeValue d)
COUNTER(cnt_interrupt_generator, D_INTERRUPT_GENERATOR, OTF2_InterruptGeneratorRef a, OTF2_StringRef b,
        OTF2_InterruptGeneratorMode c, OTF2_Base d, int64_t e, uint64_t f)
COUNTER(cnt_io_file_property, D_IO_FILE_PROPERTY, OTF2_IoFileRef a, OTF2_StringRef b, OTF2_Type c,
        OTF2_AttributeValue d)
COUNTER(cnt_io_regular_file, D_IO_REGULAR_FILE, OTF2_IoFileRef a, OTF2_StringRef b, OTF2_SystemTreeNodeRef c)
COUNTER(cnt_io_directory, D_IO_DIRECTORY, OTF2_IoFileRef a, OTF2_StringRef b, OTF2_SystemTreeNodeRef c)
COUNTER(cnt_io_handle, D_IO_HANDLE, OTF2_IoHandleRef a, OTF2_StringRef b, OTF2_IoFileRef c, OTF2_IoParadigmRef d,
        OTF2_IoHandleFlag e, OTF2_CommRef f, OTF2_IoHandleRef g)
COUNTER(cnt_io_pre_created_handle_state, D_IO_PRE_CREATED_HANDLE_STATE, OTF2_IoHandleRef a, OTF2_IoAccessMode b,
        OTF2_IoStatusFlag c)
COUNTER(cnt_callpath_parameter, D_CALLPATH_PARAMETER, OTF2_CallpathRef a, OTF2_ParameterRef b, OTF2_Type c,
        OTF2_AttributeValue d)
COUNTER(cnt_inter_comm, D_INTER_COMM, OTF2_CommRef a, OTF2_StringRef b, OTF2_GroupRef c, OTF2_GroupRef d,
        OTF2_CommRef e, OTF2_CommFlag f)
#pragma GCC diagnostic pop

static OTF2_GlobalDefReaderCallbacks *def_callbacks(void)
{
    OTF2_GlobalDefReaderCallbacks *c = OTF2_GlobalDefReaderCallbacks_New();
    if (!c)
        return NULL;
#define SET(what, fn) OTF2_GlobalDefReaderCallbacks_Set##what##Callback(c, fn)
    SET(ClockProperties, def_clock);
    SET(String, def_string);
    SET(Region, def_region);
    SET(LocationGroup, def_lgroup);
    SET(Location, def_location);
    SET(Group, def_group);
    SET(Comm, def_comm);
    SET(MetricMember, def_member);
    SET(MetricClass, def_metric_class);
    SET(MetricInstance, def_metric_instance);
    SET(Paradigm, cnt_paradigm);
    SET(ParadigmProperty, cnt_paradigm_property);
    SET(IoParadigm, cnt_io_paradigm);
    SET(Attribute, cnt_attribute);
    SET(SystemTreeNode, def_stn);
    SET(Callsite, cnt_callsite);
    SET(Callpath, cnt_callpath);
    SET(Parameter, cnt_parameter);
    SET(RmaWin, cnt_rma_win);
    SET(MetricClassRecorder, cnt_metric_class_recorder);
    SET(SystemTreeNodeProperty, cnt_stn_property);
    SET(SystemTreeNodeDomain, cnt_stn_domain);
    SET(LocationGroupProperty, cnt_lgroup_property);
    SET(LocationProperty, cnt_location_property);
    SET(CartDimension, cnt_cart_dimension);
    SET(CartTopology, cnt_cart_topology);
    SET(CartCoordinate, cnt_cart_coordinate);
    SET(SourceCodeLocation, cnt_source_code_location);
    SET(CallingContext, cnt_calling_context);
    SET(CallingContextProperty, cnt_calling_context_property);
    SET(InterruptGenerator, cnt_interrupt_generator);
    SET(IoFileProperty, cnt_io_file_property);
    SET(IoRegularFile, cnt_io_regular_file);
    SET(IoDirectory, cnt_io_directory);
    SET(IoHandle, cnt_io_handle);
    SET(IoPreCreatedHandleState, cnt_io_pre_created_handle_state);
    SET(CallpathParameter, cnt_callpath_parameter);
    SET(InterComm, cnt_inter_comm);
#undef SET
    return c;
}

/* ---- notes, processes and locations ----------------------------------- */

static int note(o2_state *s, const char *key, ari_sbuf *b)
{
    if (ari_sbuf_failed(b))
        return ari_error_set(s->err, ARI_E_NOMEM, "%s: out of memory", s->def_name);
    if (s->k->note && s->k->note(s->k->ctx, key, ari_sbuf_text(b)) < 0)
        return -1;
    ari_sbuf_reset(b);
    return 0;
}

static int notes(o2_state *s, OTF2_Reader *r)
{
    ari_sbuf b = {0};
    uint64_t types = 0;
    for (int t = 0; t < D_NTYPES; t++)
        types += s->counts[t] > 0;
    ari_sbuf_printf(&b, "{\"total\":%zu,\"types\":%llu,\"by_type\":{", s->ndefs, (unsigned long long)types);
    for (int t = 0, first = 1; t < D_NTYPES; t++) {
        if (!s->counts[t])
            continue;
        ari_sbuf_printf(&b, "%s\"%s\":%llu", first ? "" : ",", def_names[t], (unsigned long long)s->counts[t]);
        first = 0;
    }
    ari_sbuf_add_str(&b, "}}");
    int rc = note(s, "definitions", &b);
    if (rc == 0) {
        ari_sbuf_printf(&b, "{\"timer_resolution\":%llu,\"global_offset\":%llu,\"trace_length\":%llu}",
                        (unsigned long long)s->resolution, (unsigned long long)s->offset,
                        (unsigned long long)s->length);
        rc = note(s, "clock", &b);
    }
    char *creator = NULL;
    if (rc == 0 && OTF2_Reader_GetCreator(r, &creator) == OTF2_SUCCESS && creator) {
        ari_sbuf_json_string(&b, creator);
        rc = note(s, "creator", &b);
    }
    free(creator);
    ari_sbuf_free(&b);
    return rc;
}

/* The sink's node of system-tree node ref (its ancestors first), made on
 * first use; -1 for none (an undefined ref), -2 on failure. */
static int64_t stn_handle(o2_state *s, uint32_t ref, int depth)
{
    int64_t i = ref == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? -1 : idmap_get(&s->stn_ids, ref);
    if (i < 0)
        return -1;
    if (s->stns[i].handle >= 0)
        return s->stns[i].handle;
    if (depth >= O2_MAX_TREE_DEPTH) {
        ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: the system tree has a cycle or more than %d levels",
                      s->def_name, O2_MAX_TREE_DEPTH);
        return -2;
    }
    int64_t parent = stn_handle(s, s->stns[i].parent, depth + 1);
    if (parent < -1)
        return -2;
    const char *name = str_of(s, s->stns[i].name);
    int64_t h = s->k->system_node(s->k->ctx, parent, str_of(s, s->stns[i].cls), name ? name : "");
    if (h < 0)
        return -2;
    return s->stns[i].handle = h;
}

/* The sink's process of a location group, made on first use, under its
 * system-tree node when the sink keeps the tree. */
static int64_t process_of(o2_state *s, o2_lgroup *g)
{
    if (g->handle < 0) {
        if (g->id > INT64_MAX)
            return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: location group id %llu out of range",
                                 s->def_name, (unsigned long long)g->id);
        if (s->k->system_node && s->k->process_node) {
            int64_t node = stn_handle(s, g->parent, 0);
            if (node < -1 || (node >= 0 && s->k->process_node(s->k->ctx, (int64_t)g->id, node) < 0))
                return -1;
        }
        g->handle = s->k->process(s->k->ctx, (int64_t)g->id, str_of(s, g->name));
    }
    return g->handle;
}

static _Thread_local const o2_state *sort_state; /* for cmp_location, around its qsort */

/* Orders location indexes by (location group, id). */
static int cmp_location(const void *a, const void *b)
{
    const o2_location *x = &sort_state->locations[*(const size_t *)a];
    const o2_location *y = &sort_state->locations[*(const size_t *)b];
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Processes and locations, in definition order. A location's thread is its
 * ordinal among its group's locations by id (0 for the smallest id): the
 * same as Pipit's "location id minus the group's smallest" for one thread
 * per process and for dense ids, and small numbers for Score-P's sparse
 * thread location ids. */
static int make_locations(o2_state *s)
{
    size_t *order = malloc((s->n_locations ? s->n_locations : 1) * sizeof *order);
    int64_t *thread = malloc((s->n_locations ? s->n_locations : 1) * sizeof *thread);
    if (!order || !thread) {
        free(order), free(thread);
        return ari_error_set(s->err, ARI_E_NOMEM, "%s: out of memory", s->def_name);
    }
    for (size_t i = 0; i < s->n_locations; i++) {
        order[i] = i;
        s->total_events += s->locations[i].nevents;
    }
    sort_state = s;
    qsort(order, s->n_locations, sizeof *order, cmp_location);
    sort_state = NULL;
    for (size_t j = 0; j < s->n_locations; j++) {
        const o2_location *l = &s->locations[order[j]];
        int same = j > 0 && s->locations[order[j - 1]].group == l->group;
        thread[order[j]] = same ? thread[order[j - 1]] + 1 : 0;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < s->n_locations; i++) {
        o2_location *l = &s->locations[i];
        int64_t g = idmap_get(&s->lgroup_ids, l->group);
        int64_t p = g < 0 ? -1 : process_of(s, &s->lgroups[g]);
        if (g < 0)
            rc = ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: location %llu is in undefined location group %u",
                               s->def_name, (unsigned long long)l->id, (unsigned)l->group);
        else if (p < 0)
            rc = -1;
        else {
            l->rank = (int64_t)s->lgroups[g].id;
            l->handle = s->k->location(s->k->ctx, p, thread[i], str_of(s, l->name));
            rc = l->handle < 0 ? -1 : 0;
        }
    }
    free(order), free(thread);
    return rc;
}

/* ---- events -------------------------------------------------------------- */

static double ns_of(const o2_state *s, OTF2_TimeStamp t)
{
    double ticks = t >= s->offset ? (double)(t - s->offset) : -(double)(s->offset - t);
    return ticks * 1e9 / (double)s->resolution;
}

static void progress(const o2_state *s)
{
    if (s->k->progress && s->total_events)
        s->k->progress(s->k->ctx, s->done_events < s->total_events
                                      ? (double)s->done_events / (double)s->total_events : 1.0);
}

/* The current location, after checking the event's location and time;
 * *ns gets the time. NULL when the read must stop. */
static o2_location *at(o2_state *s, OTF2_LocationRef loc, OTF2_TimeStamp t, double *ns)
{
    o2_location *l = s->cur;
    if (l->id != loc) {
        stop(s, "%s: event %llu is of location %llu", s->evt_name, (unsigned long long)l->seen,
             (unsigned long long)loc);
        return NULL;
    }
    *ns = ns_of(s, t);
    if (l->seen > 0 && *ns < l->last) {
        stop(s, "%s: event %llu: time %llu goes back", s->evt_name, (unsigned long long)l->seen,
             (unsigned long long)t);
        return NULL;
    }
    l->last = *ns;
    l->seen++;
    if (++s->done_events % 65536 == 0)
        progress(s);
    return l;
}

static const char *role_name(int role, int paradigm)
{
    static const char *const roles[] = {
        NULL, "function", "wrapper", "loop", "code", "parallel", "sections", "section", "workshare", "single",
        "single_sblock", "master", "critical", "critical_sblock", "atomic", "barrier", "implicit_barrier", "flush",
        "ordered", "ordered_sblock", "task", "task_create", "task_wait", "coll_one2all", "coll_all2one",
        "coll_all2all", "coll_other", "file_io", "point2point", "rma", "data_transfer", "artificial",
        "thread_create", "thread_wait", "task_untied", "allocate", "deallocate", "reallocate",
        "file_io_metadata"};
    if (paradigm == OTF2_PARADIGM_MPI)
        return "mpi";
    return role >= 0 && (size_t)role < sizeof roles / sizeof *roles ? roles[role] : NULL;
}

/* The sink's region of a reference, made on first use; -1 stops. */
static int64_t region_of(o2_state *s, OTF2_RegionRef ref)
{
    int64_t i = idmap_get(&s->region_ids, ref);
    if (i < 0) {
        stop(s, "%s: event %llu: undefined region %u", s->evt_name, (unsigned long long)s->cur->seen,
             (unsigned)ref);
        return -1;
    }
    o2_region *g = &s->regions[i];
    if (g->handle < 0) {
        char fallback[32];
        const char *name = str_of(s, g->name);
        if (!name) {
            snprintf(fallback, sizeof fallback, "region %u", (unsigned)ref);
            name = fallback;
        }
        int line = g->line <= INT_MAX ? (int)g->line : 0;
        g->handle = s->k->region(s->k->ctx, name, str_of(s, g->file), line, role_name(g->role, g->paradigm));
        if (g->handle < 0)
            sink_stop(s);
    }
    return g->handle;
}

static OTF2_CallbackCode region_event(void *u, OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_RegionRef region,
                                      int leave)
{
    o2_state *s = u;
    double ns;
    o2_location *l = at(s, loc, t, &ns);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t r = region_of(s, region);
    if (r < 0)
        return OTF2_CALLBACK_INTERRUPT;
    int rc = leave ? s->k->leave(s->k->ctx, l->handle, ns, r) : s->k->enter(s->k->ctx, l->handle, ns, r);
    return rc < 0 ? sink_stop(s) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)pos, (void)a;
    return region_event(u, loc, t, region, 0);
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)pos, (void)a;
    return region_event(u, loc, t, region, 1);
}

static OTF2_CallbackCode instant(void *u, OTF2_LocationRef loc, OTF2_TimeStamp t, const char *name)
{
    o2_state *s = u;
    double ns;
    o2_location *l = at(s, loc, t, &ns);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    return s->k->instant(s->k->ctx, l->handle, ns, name) < 0 ? sink_stop(s) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                          OTF2_AttributeList *a, OTF2_StringRef name, uint32_t nargs,
                                          const OTF2_StringRef *args)
{
    (void)pos, (void)a, (void)name, (void)nargs, (void)args;
    return instant(u, loc, t, "ProgramBegin");
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, int64_t status)
{
    (void)pos, (void)a, (void)status;
    return instant(u, loc, t, "ProgramEnd");
}

static OTF2_CallbackCode ev_buffer_flush(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                         OTF2_AttributeList *a, OTF2_TimeStamp stop_time)
{
    (void)pos, (void)a, (void)stop_time;
    return instant(u, loc, t, "BufferFlush");
}

static OTF2_CallbackCode ev_measurement(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, OTF2_MeasurementMode mode)
{
    (void)pos, (void)a, (void)mode;
    return instant(u, loc, t, "MeasurementOnOff");
}

/* The sink's communicator of a reference (-1 for OTF2_UNDEFINED_COMM);
 * *c gets its row. -2 stops. */
static int64_t comm_of(o2_state *s, OTF2_CommRef ref, o2_comm **c)
{
    *c = NULL;
    if (ref == OTF2_UNDEFINED_COMM)
        return -1;
    int64_t i = idmap_get(&s->comm_ids, ref);
    if (i < 0) {
        stop(s, "%s: event %llu: undefined communicator %u", s->evt_name, (unsigned long long)s->cur->seen,
             (unsigned)ref);
        return -2;
    }
    *c = &s->comms[i];
    if ((*c)->handle < 0) {
        int64_t g = idmap_get(&s->group_ids, (*c)->group);
        int64_t size = g < 0 ? -1 : s->groups[g].type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : (int64_t)s->groups[g].n;
        (*c)->handle = s->k->communicator(s->k->ctx, str_of(s, (*c)->name), size);
        if ((*c)->handle < 0) {
            sink_stop(s);
            return -2;
        }
    }
    return (*c)->handle;
}

/* The COMM_LOCATIONS group of a paradigm (the locations in rank order), or NULL. */
static const o2_group *comm_locations(const o2_state *s, int paradigm)
{
    for (size_t i = 0; i < s->n_groups; i++)
        if (s->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && s->groups[i].paradigm == paradigm)
            return &s->groups[i];
    return NULL;
}

/* A rank in a communicator as the location group (process rank) it runs
 * in: comm group member -> COMM_LOCATIONS member -> location -> group.
 * The rank itself when the definitions do not say. */
static int64_t peer_of(const o2_state *s, const o2_comm *c, uint32_t rank)
{
    if (rank == OTF2_UNDEFINED_UINT32)
        return -1;
    int64_t g = c ? idmap_get(&s->group_ids, c->group) : -1;
    if (g < 0)
        return rank;
    const o2_group *cg = &s->groups[g];
    if (cg->type == OTF2_GROUP_TYPE_COMM_SELF)
        return s->cur->rank;
    if (cg->type != OTF2_GROUP_TYPE_COMM_GROUP || rank >= cg->n)
        return rank;
    const o2_group *cl = comm_locations(s, cg->paradigm);
    uint64_t world = cg->members[rank];
    if (!cl || world >= cl->n)
        return (int64_t)(world <= INT64_MAX ? world : rank);
    int64_t l = idmap_get(&s->location_ids, cl->members[world]);
    return l < 0 ? (int64_t)world : s->locations[l].rank;
}

static OTF2_CallbackCode message(void *u, OTF2_LocationRef loc, OTF2_TimeStamp t, ari_msg_kind kind, uint32_t peer,
                                 OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request)
{
    o2_state *s = u;
    double ns;
    o2_location *l = at(s, loc, t, &ns);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    o2_comm *c = NULL;
    int64_t ch = comm_of(s, comm, &c);
    if (ch < -1)
        return OTF2_CALLBACK_INTERRUPT;
    ari_event_msg m = {l->handle, ns, kind, peer_of(s, c, peer), tag == OTF2_UNDEFINED_UINT32 ? -1 : (int64_t)tag,
                       ch, bytes, request};
    return s->k->message(s->k->ctx, &m) < 0 ? sink_stop(s) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                 uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    (void)pos, (void)a;
    return message(u, loc, t, ARI_MSG_SEND, receiver, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t request)
{
    (void)pos, (void)a;
    return message(u, loc, t, ARI_MSG_ISEND, receiver, comm, tag, len, request);
}

static OTF2_CallbackCode ev_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                           OTF2_AttributeList *a, uint64_t request)
{
    (void)pos, (void)a;
    return message(u, loc, t, ARI_MSG_ISEND_COMPLETE, OTF2_UNDEFINED_UINT32, OTF2_UNDEFINED_COMM,
                   OTF2_UNDEFINED_UINT32, 0, request);
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                 uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    (void)pos, (void)a;
    return message(u, loc, t, ARI_MSG_RECV, sender, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                          OTF2_AttributeList *a, uint64_t request)
{
    (void)pos, (void)a;
    return message(u, loc, t, ARI_MSG_IRECV_REQUEST, OTF2_UNDEFINED_UINT32, OTF2_UNDEFINED_COMM,
                   OTF2_UNDEFINED_UINT32, 0, request);
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t request)
{
    (void)pos, (void)a;
    return message(u, loc, t, ARI_MSG_IRECV, sender, comm, tag, len, request);
}

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                       OTF2_AttributeList *a)
{
    o2_state *s = u;
    (void)pos, (void)a;
    double ns;
    o2_location *l = at(s, loc, t, &ns);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    if (l->coll_open)
        return stop(s, "%s: event %llu: MpiCollectiveBegin inside another collective", s->evt_name,
                    (unsigned long long)l->seen - 1);
    l->coll_open = 1;
    l->coll_begin = ns;
    return OTF2_CALLBACK_SUCCESS;
}

static const char *collective_name(OTF2_CollectiveOp op)
{
    static const char *const ops[] = {
        "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv", "Alltoall",
        "Alltoallv", "Alltoallw", "Allreduce", "Reduce", "Reduce_scatter", "Scan", "Exscan",
        "Reduce_scatter_block", "CreateHandle", "DestroyHandle", "Allocate", "Deallocate",
        "CreateHandleAndAllocate", "DestroyHandleAndDeallocate"};
    return (size_t)op < sizeof ops / sizeof *ops ? ops[op] : "Unknown";
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    o2_state *s = u;
    (void)pos, (void)a;
    double ns;
    o2_location *l = at(s, loc, t, &ns);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->coll_open)
        return stop(s, "%s: event %llu: MpiCollectiveEnd without its begin", s->evt_name,
                    (unsigned long long)l->seen - 1);
    l->coll_open = 0;
    o2_comm *c = NULL;
    int64_t ch = comm_of(s, comm, &c);
    if (ch < -1)
        return OTF2_CALLBACK_INTERRUPT;
    int64_t r = root >= OTF2_COLLECTIVE_ROOT_THIS_GROUP ? -1 : peer_of(s, c, root);
    ari_event_collective e = {l->handle, l->coll_begin, ns, collective_name(op), ch, r, sent, received, 0, 0};
    return s->k->collective(s->k->ctx, &e) < 0 ? sink_stop(s) : OTF2_CALLBACK_SUCCESS;
}

/* The members of a metric class or instance, or NULL. */
static const o2_metric *metric_of(const o2_state *s, OTF2_MetricRef ref)
{
    int64_t i = idmap_get(&s->metric_ids, ref);
    if (i >= 0 && s->metrics[i].is_instance)
        i = idmap_get(&s->metric_ids, s->metrics[i].class_ref);
    return i < 0 || s->metrics[i].is_instance ? NULL : &s->metrics[i];
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    o2_state *s = u;
    (void)pos, (void)a;
    double ns;
    o2_location *l = at(s, loc, t, &ns);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    const o2_metric *m = metric_of(s, metric);
    if (!m || m->n != n)
        return stop(s, "%s: event %llu: %s metric %u", s->evt_name, (unsigned long long)l->seen - 1,
                    m ? "wrong number of values for" : "undefined", (unsigned)metric);
    for (unsigned j = 0; j < n; j++) {
        int64_t mi = idmap_get(&s->member_ids, m->members[j]);
        const char *name = mi < 0 ? NULL : str_of(s, s->members[mi].name);
        if (!name)
            return stop(s, "%s: event %llu: metric %u has an undefined or unnamed member %u", s->evt_name,
                        (unsigned long long)l->seen - 1, (unsigned)metric, (unsigned)m->members[j]);
        double v = types[j] == OTF2_TYPE_INT64    ? (double)values[j].signed_int
                   : types[j] == OTF2_TYPE_UINT64 ? (double)values[j].unsigned_int
                   : types[j] == OTF2_TYPE_DOUBLE ? values[j].floating_point
                                                  : NAN;
        if (!isfinite(v))
            return stop(s, "%s: event %llu: metric %s: not a finite number", s->evt_name,
                        (unsigned long long)l->seen - 1, name);
        if (s->k->metric(s->k->ctx, l->handle, ns, name, str_of(s, s->members[mi].unit), v) < 0)
            return sink_stop(s);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_EvtReaderCallbacks *evt_callbacks(void)
{
    OTF2_EvtReaderCallbacks *c = OTF2_EvtReaderCallbacks_New();
    if (!c)
        return NULL;
#define SET(what, fn) OTF2_EvtReaderCallbacks_Set##what##Callback(c, fn)
    SET(Enter, ev_enter);
    SET(Leave, ev_leave);
    SET(ProgramBegin, ev_program_begin);
    SET(ProgramEnd, ev_program_end);
    SET(BufferFlush, ev_buffer_flush);
    SET(MeasurementOnOff, ev_measurement);
    SET(MpiSend, ev_send);
    SET(MpiIsend, ev_isend);
    SET(MpiIsendComplete, ev_isend_complete);
    SET(MpiRecv, ev_recv);
    SET(MpiIrecvRequest, ev_irecv_request);
    SET(MpiIrecv, ev_irecv);
    SET(MpiCollectiveBegin, ev_coll_begin);
    SET(MpiCollectiveEnd, ev_coll_end);
    SET(Metric, ev_metric);
#undef SET
    return c;
}

/* ---- the read ------------------------------------------------------------ */

int ari_otf2_probe(const char *head, size_t n)
{
    /* a buffer header byte, the endianness ('B' or 'L'), then "OTF2\0" */
    return n >= 7 && (head[1] == 'B' || head[1] == 'L') && memcmp(head + 2, "OTF2", 5) == 0;
}

/* A property name as libotf2 requires it: [A-Z0-9_] words joined by "::",
 * at least two (a namespace and a name). */
static int property_name_ok(const char *s)
{
    int words = 0;
    for (;;) {
        const char *w = s;
        while ((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')
            s++;
        if (s == w)
            return 0;
        words++;
        if (!*s)
            return words >= 2;
        if (s[0] != ':' || s[1] != ':')
            return 0;
        s += 2;
    }
}

/* The anchor's properties (name and value strings from byte p, the file
 * ending in a NUL is known): a bad name makes libotf2 fail the open and
 * leak the whole archive (about 10 kB), so it is refused here. */
static int check_properties(const unsigned char *b, size_t n, size_t p, uint64_t nprops, const char *name,
                            ari_error *err)
{
    for (uint64_t i = 0; i < nprops; i++) {
        const unsigned char *z = memchr(b + p, 0, n - p);
        if (!z)
            break;
        if (!property_name_ok((const char *)b + p))
            return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: bad property name at byte %zu", name, p);
        p = (size_t)(z - b) + 1;
        z = memchr(b + p, 0, n - p); /* the value */
        if (!z)
            break;
        p = (size_t)(z - b) + 1;
    }
    return 0;
}

/* A chunk size of the anchor (8 bytes, little-endian): libotf2 allocates
 * buffers of that size, and OTF2 allows 256 kB to 16 MB. */
static uint64_t chunk_size(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Longest anchor file read (Score-P's are a few hundred bytes). */
#define MAX_ANCHOR ((size_t)1 << 20)

/* Checks the anchor file before libotf2 opens it: its magic, and, for
 * the layout that OTF2 2.3 and 3.0 write (the only ones seen; libotf2 3.0
 * reads any anchor this way), that its chunk sizes are within OTF2's
 * bounds (libotf2 allocates them: a fuzzed anchor made it take gigabytes),
 * its property count fits the file and its property names are valid. That layout, as read from such files: the
 * magic (7 bytes), two bytes (3, 2), the library version (3), two chunk sizes
 * (2 x 8), the file substrate and compression (2), the numbers of
 * locations and of global definitions (2 x 8; byte 46 on), then the
 * machine name, creator and description as NUL-ended strings, a 4-byte
 * little-endian count of properties and, for each, a name and a value
 * string. libotf2 believes the count and reads past the end as
 * zeros, so a cut or corrupt anchor with a large count kept it busy for
 * hours (found by fuzz_otf2). */
static int check_anchor(const char *path, const char *name, ari_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ari_error_set(err, ARI_E_IO, "%s: %s", name, strerror(errno));
    unsigned char *b = malloc(MAX_ANCHOR + 1);
    size_t n = b ? fread(b, 1, MAX_ANCHOR + 1, f) : 0;
    fclose(f);
    int rc = 0;
    if (!b)
        rc = ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", name);
    else if (!ari_otf2_probe((const char *)b, n))
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not an OTF2 anchor file", name);
    else if (n > MAX_ANCHOR)
        rc = ari_error_set(err, ARI_E_TOO_LARGE, "%s: larger than %zu bytes", name, MAX_ANCHOR);
    else if (n < 46)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cut short at byte %zu", name, n);
    else if (chunk_size(b + 12) < OTF2_CHUNK_SIZE_MIN || chunk_size(b + 12) > OTF2_CHUNK_SIZE_MAX ||
             chunk_size(b + 20) < OTF2_CHUNK_SIZE_MIN || chunk_size(b + 20) > OTF2_CHUNK_SIZE_MAX)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: chunk sizes %llu and %llu (bytes 12 and 20) out of range",
                           name, (unsigned long long)chunk_size(b + 12), (unsigned long long)chunk_size(b + 20));
    else {
        size_t p = 46;
        for (int i = 0; i < 3 && p <= n; i++) {
            const unsigned char *z = memchr(b + p, 0, n - p);
            p = z ? (size_t)(z - b) + 1 : n + 1;
        }
        if (p + 4 > n)
            rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: cut short before its properties (%zu bytes)", name, n);
        else {
            uint64_t nprops = (uint64_t)b[p] | (uint64_t)b[p + 1] << 8 | (uint64_t)b[p + 2] << 16 |
                              (uint64_t)b[p + 3] << 24;
            size_t strings = 0;
            for (size_t i = p + 4; i < n; i++)
                strings += b[i] == 0;
            if (nprops * 2 > strings)
                rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: %llu properties at byte %zu, in a file of %zu bytes",
                                   name, (unsigned long long)nprops, p, n);
            else
                rc = check_properties(b, n, p + 4, nprops, name, err);
        }
    }
    free(b);
    return rc;
}

/* ---- the Group records of traces.def, before libotf2 reads them ---------- */

/* OTF2's buffer format, as libotf2 3.0 reads it: chunks of the anchor's
 * definition chunk size, each opened by a header (byte 3, the endianness:
 * 0x42 little, 0x23 big, two 8-byte event numbers); then records: a type
 * byte (0 ends the chunk, 2 the file), a length byte (0xff: an 8-byte
 * length follows) and the fields; a compressed integer is a byte giving
 * its size (0: zero, 0xff: all ones, else 1..8 bytes follow). */
#define OTF2_DEF_GROUP 18

typedef struct o2_bytes {
    const unsigned char *b;
    size_t n, p;
    int big;
} o2_bytes;

/* A compressed integer of at most `bytes` bytes (4 or 8); sets *ok = 0
 * past the end or on a bad size. */
static uint64_t compressed(o2_bytes *r, unsigned bytes, int *ok)
{
    if (r->p >= r->n)
        return *ok = 0, 0;
    unsigned size = r->b[r->p++];
    if (size == 0)
        return 0;
    if (size == 0xff)
        return bytes == 4 ? UINT32_MAX : UINT64_MAX;
    if (size > bytes || size > r->n - r->p)
        return *ok = 0, 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v = r->big ? v << 8 | r->b[r->p + i] : v | (uint64_t)r->b[r->p + i] << (8 * i);
    r->p += size;
    return v;
}

/* The member count of a Group record against its length: libotf2
 * allocates count x 8 bytes before reading the members (0xffffffff made
 * it ask for 32 GB); each member takes at least a byte. 0, or -1. */
static int check_group(const unsigned char *rec, size_t len, int big, size_t at, const char *name, ari_error *err)
{
    o2_bytes r = {rec, len, 0, big};
    int ok = 1;
    compressed(&r, 4, &ok); /* self */
    compressed(&r, 4, &ok); /* name */
    r.p++;                  /* group type (before OTF2 1.2) */
    uint64_t count = compressed(&r, 4, &ok);
    if (ok && r.p <= len && count > len - r.p)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: a Group record at byte %zu claims %llu members in "
                             "%zu bytes (corrupt)", name, at, (unsigned long long)count, len);
    return 0;
}

/* Walks the records of one chunk; *end set at the end-of-file record. A
 * record that does not fit is left for libotf2 to refuse. */
static int check_def_chunk(const unsigned char *b, size_t n, size_t base, int *end, const char *name,
                           ari_error *err)
{
    if (n < 18 || b[0] != 3 || (b[1] != 0x42 && b[1] != 0x23))
        return *end = 1, 0;
    o2_bytes r = {b, n, 18, b[1] == 0x23};
    while (r.p + 2 <= n) {
        unsigned type = b[r.p++];
        if (type == 0 || type == 2) {
            *end = type == 2;
            return 0;
        }
        uint64_t len = b[r.p++];
        if (len == 0xff) {
            if (n - r.p < 8)
                return *end = 1, 0;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = r.big ? len << 8 | b[r.p + i] : len | (uint64_t)b[r.p + i] << (8 * i);
            r.p += 8;
        }
        if (len > n - r.p)
            return *end = 1, 0;
        if (type == OTF2_DEF_GROUP && check_group(b + r.p, (size_t)len, r.big, base + r.p, name, err) < 0)
            return -1;
        r.p += (size_t)len;
    }
    return 0;
}

/* Checks the Group records of the global definitions (def_path) before
 * libotf2 allocates what they claim, chunk by chunk. A missing or odd file
 * is left to libotf2. */
static int check_defs(const char *def_path, uint64_t chunk, const char *name, ari_error *err)
{
    FILE *f = fopen(def_path, "rb");
    if (!f)
        return 0;
    unsigned char *b = malloc((size_t)chunk);
    int rc = b ? 0 : ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", name), end = 0;
    for (size_t base = 0; rc == 0 && !end; base += (size_t)chunk) {
        size_t n = fread(b, 1, (size_t)chunk, f);
        rc = check_def_chunk(b, n, base, &end, name, err);
        end |= n < chunk;
    }
    free(b);
    fclose(f);
    return rc;
}

static void state_free(o2_state *s)
{
    for (size_t i = 0; i < s->n_strings; i++)
        free(s->strings[i]);
    for (size_t i = 0; i < s->n_groups; i++)
        free(s->groups[i].members);
    free(s->strings), free(s->regions), free(s->lgroups), free(s->locations), free(s->stns);
    free(s->groups), free(s->comms), free(s->members), free(s->metrics);
    idmap *maps[] = {&s->stn_ids, &s->string_ids, &s->region_ids, &s->lgroup_ids, &s->location_ids,
                     &s->group_ids,  &s->comm_ids,   &s->member_ids, &s->metric_ids};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        idmap_free(maps[i]);
}

static int read_definitions(o2_state *s, OTF2_Reader *r)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    if (!gdr)
        return lib_error(s, s->def_name, OTF2_ERROR_FILE_CAN_NOT_OPEN);
    OTF2_GlobalDefReaderCallbacks *c = def_callbacks();
    if (!c)
        return ari_error_set(s->err, ARI_E_NOMEM, "%s: out of memory", s->def_name);
    OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, c, s);
    OTF2_GlobalDefReaderCallbacks_Delete(c);
    uint64_t nread = 0;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &nread);
    if (s->failed)
        return -1;
    if (rc != OTF2_SUCCESS)
        return lib_error(s, s->def_name, rc);
    if (!s->have_clock)
        return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: no ClockProperties definition", s->def_name);
    if (s->resolution == 0)
        return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: timer resolution is 0", s->def_name);
    if (s->n_locations == 0)
        return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: no Location definition", s->def_name);
    return 0;
}

/* Reads one location's local definitions (mapping tables, optional) and
 * its events, in batches so progress is reported. */
static int read_location(o2_state *s, OTF2_Reader *r, o2_location *l, const OTF2_EvtReaderCallbacks *c,
                         const char *archive)
{
    snprintf(s->evt_name, sizeof s->evt_name, "%s/%llu.evt", archive, (unsigned long long)l->id);
    s->cur = l;
    otf2_last_error[0] = '\0';
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, l->id);
    if (!er && l->nevents == 0)
        return 0; /* defined without events: its file need not exist */
    if (!er)
        return lib_error(s, s->evt_name, OTF2_ERROR_FILE_CAN_NOT_OPEN);
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, l->id);
    if (dr) {
        uint64_t nd = 0;
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(r, dr, &nd);
        OTF2_Reader_CloseDefReader(r, dr);
        if (rc != OTF2_SUCCESS) {
            char name[112];
            snprintf(name, sizeof name, "%s/%llu.def", archive, (unsigned long long)l->id);
            return lib_error(s, name, rc);
        }
    }
    /* all at once: libotf2's local reader asked for more events after the
     * last one starts over or fails, so no batches; progress comes from at() */
    uint64_t got = 0;
    OTF2_ErrorCode rc = OTF2_Reader_RegisterEvtCallbacks(r, er, c, s);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllLocalEvents(r, er, &got);
    OTF2_Reader_CloseEvtReader(r, er);
    if (s->failed)
        return -1;
    if (rc != OTF2_SUCCESS)
        return lib_error(s, s->evt_name, rc);
    if (l->coll_open)
        return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: MpiCollectiveBegin without its end", s->evt_name);
    /* libotf2 ends a cut file's stream quietly: the definition's count says */
    if (l->nevents > 0 && got != l->nevents)
        return ari_error_set(s->err, ARI_E_INVALID_INPUT, "%s: %llu events where %s says %llu (truncated?)",
                             s->evt_name, (unsigned long long)got, s->def_name, (unsigned long long)l->nevents);
    return 0;
}

static int read_events(o2_state *s, OTF2_Reader *r, const char *archive)
{
    for (size_t i = 0; i < s->n_locations; i++)
        if (OTF2_Reader_SelectLocation(r, s->locations[i].id) != OTF2_SUCCESS)
            return lib_error(s, s->def_name, OTF2_ERROR_INVALID_ARGUMENT);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    otf2_last_error[0] = '\0';
    OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles(r);
    if (rc != OTF2_SUCCESS) {
        if (have_defs)
            OTF2_Reader_CloseDefFiles(r);
        return lib_error(s, archive, rc);
    }
    OTF2_EvtReaderCallbacks *c = evt_callbacks();
    int ret = c ? 0 : ari_error_set(s->err, ARI_E_NOMEM, "%s: out of memory", archive);
    for (size_t i = 0; ret == 0 && i < s->n_locations; i++)
        ret = read_location(s, r, &s->locations[i], c, archive);
    if (ret == 0 && s->k->progress)
        s->k->progress(s->k->ctx, 1.0);
    OTF2_EvtReaderCallbacks_Delete(c);
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    return ret;
}

/* traces.def beside the anchor, checked with the anchor's definition chunk
 * size (bytes 20..27, within bounds: check_anchor passed). */
static int check_def_file(const char *anchor_path, const char *def_name, ari_error *err)
{
    unsigned char head[28];
    FILE *f = fopen(anchor_path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    if (n < sizeof head)
        return 0;
    size_t len = strlen(anchor_path);
    char *path = malloc(len + 8);
    if (!path)
        return ari_error_set(err, ARI_E_NOMEM, "%s: out of memory", def_name);
    memcpy(path, anchor_path, len + 1);
    if (len > 5 && strcmp(path + len - 5, ".otf2") == 0)
        path[len - 5] = '\0';
    strcat(path, ".def");
    int rc = check_defs(path, chunk_size(head + 20), def_name, err);
    free(path);
    return rc;
}

/* base: the anchor's file name without ".otf2" ("traces"), into out. */
static void archive_base(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".otf2") == 0)
        n -= 5;
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), name);
}

int ari_otf2_read(const char *anchor_path, const ari_event_sink *k, ari_error *err)
{
    char base[64], def_name[80], anchor_name[80];
    archive_base(anchor_path, base, sizeof base);
    snprintf(def_name, sizeof def_name, "%s.def", base);
    snprintf(anchor_name, sizeof anchor_name, "%s.otf2", base);
    if (check_anchor(anchor_path, anchor_name, err) < 0 || check_def_file(anchor_path, def_name, err) < 0)
        return -1;
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    otf2_last_error[0] = '\0';
    OTF2_Reader *r = OTF2_Reader_Open(anchor_path);
    if (!r)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not a readable OTF2 anchor file%s%s", anchor_name,
                             otf2_last_error[0] ? ": " : "", otf2_last_error);
    o2_state s = {.k = k, .err = err, .def_name = def_name};
    int ret = -1;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS)
        lib_error(&s, anchor_name, OTF2_ERROR_INVALID);
    else if (read_definitions(&s, r) == 0 && notes(&s, r) == 0 && make_locations(&s) == 0)
        ret = read_events(&s, r, base);
    OTF2_Reader_Close(r);
    state_free(&s);
    return ret;
}
