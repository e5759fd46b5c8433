/* hwloc_xml.c: topologies from hwloc XML or from this machine (see
 * hwloc_xml.h).
 *
 * An uploaded XML file is never given to libhwloc, whose XML import crashes
 * and leaks on malformed input. It is parsed here with expat into a tree of
 * objects, and the tree is then shaped the way libhwloc 2.9 shapes an
 * imported topology, so that the components are the same as those libhwloc
 * gave: instruction caches, memory-side caches and Misc objects are dropped
 * (their children move up), Group levels that add no structure are merged,
 * disallowed and empty objects are removed, pre-2.0 files get their NUMA
 * nodes moved to memory children, and logical indices are numbered per
 * level. Everything is bounded (file size, objects, depth, attribute
 * lengths, infos) and every failure is an invalid_input naming the line.
 *
 * libhwloc is still used for this machine's own topology (trusted).
 */
#include "ingest/hwloc_xml.h"
#include "util/vec.h"

#include <expat.h>
#include <hwloc.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_XML_BYTES ((size_t)64 << 20) /* a 10,000-PU machine is about 10 MB */
#define MAX_OBJECTS 200000
#define MAX_DEPTH 64                     /* nested <object> elements */
#define MAX_ATTR_BYTES 65536             /* a cpuset of 8,192 PUs is 2.8 kB */
#define MAX_INFOS 256                    /* <info> per object */
#define MAX_SET_WORDS 2048               /* 32-bit words of a cpuset: 65,536 PUs */

int ari_topology_add(ari_topology *t, int parent, const char *kind, const char *name, int64_t os_index,
                     const char *key, const char *attrs_json)
{
    if (ari_vec_reserve((void **)&t->comps, &t->cap, t->n + 1, sizeof *t->comps) < 0)
        return -1;
    ari_component *c = &t->comps[t->n];
    memset(c, 0, sizeof *c);
    c->parent = parent;
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    snprintf(c->name, sizeof c->name, "%s", name ? name : "");
    c->os_index = os_index;
    c->logical_index = -1;
    snprintf(c->key, sizeof c->key, "%s", key ? key : "");
    c->attrs_json = strdup(attrs_json ? attrs_json : "{}");
    if (!c->attrs_json)
        return -1;
    return (int)t->n++;
}

int ari_topology_find_key(const ari_topology *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->comps[i].key, key) == 0)
            return (int)i;
    return -1;
}

void ari_topology_free(ari_topology *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->comps[i].attrs_json);
    free(t->comps);
    memset(t, 0, sizeof *t);
}

int ari_hwloc_probe(const char *head, size_t n)
{
    return memmem(head, n, "<topology", 9) != NULL && memmem(head, n, "<object", 7) != NULL;
}

/* ---- object types, as libhwloc 2.9 numbers and orders them ----------------- */

enum hw_type {
    T_MACHINE, T_PACKAGE, T_CORE, T_PU, T_L1, T_L2, T_L3, T_L4, T_L5, T_L1I, T_L2I, T_L3I, T_GROUP,
    T_NUMANODE, T_BRIDGE, T_PCIDEV, T_OSDEV, T_MISC, T_MEMCACHE, T_DIE, T_COUNT,
    T_NONE = -1, T_CACHE_OLD = -2 /* a pre-2.0 "Cache", typed by its depth later */
};

static const char *const type_names[T_COUNT] = {
    "Machine", "Package", "Core", "PU", "L1Cache", "L2Cache", "L3Cache", "L4Cache", "L5Cache", "L1iCache",
    "L2iCache", "L3iCache", "Group", "NUMANode", "Bridge", "PCIDev", "OSDev", "Misc", "MemCache", "Die",
};

/* For messages and output: a pre-2.0 "Cache" not yet typed by its depth is "Cache". */
static const char *type_name(int type)
{
    return type >= 0 && type < T_COUNT ? type_names[type] : "Cache";
}

/* Position from the top (hwloc's obj_type_order) and merge priority. */
static const int type_order[T_COUNT] = {0, 4, 14, 18, 12, 10, 8, 7, 6, 13, 11, 9, 1, 3, 15, 16, 17, 19, 2, 5};
static const int type_priority[T_COUNT] = {90, 40, 60, 100, 20, 20, 20, 20, 20, 19, 19, 19, 0, 100, 0, 100, 100, 0, 19, 30};

enum { CACHE_UNIFIED, CACHE_DATA, CACHE_INSTRUCTION };
enum { OSDEV_BLOCK, OSDEV_GPU, OSDEV_NETWORK, OSDEV_OPENFABRICS, OSDEV_DMA, OSDEV_COPROC };
#define GROUP_KIND_INTEL_MODULE 102
#define GROUP_KIND_INTEL_TILE 103
#define GROUP_KIND_INTEL_DIE 104
#define GROUP_KIND_MEMORY 1001
#define UNKNOWN_INDEX 0xffffffffu

static int is_normal(int t) { return (t >= T_MACHINE && t <= T_GROUP) || t == T_DIE; }
static int is_memory(int t) { return t == T_NUMANODE || t == T_MEMCACHE; }
static int is_io(int t) { return t >= T_BRIDGE && t <= T_OSDEV; }
static int is_special(int t) { return t >= T_BRIDGE && t <= T_MISC; }
static int is_cache(int t) { return t >= T_L1 && t <= T_L3I; }

/* hwloc__type_match: a case-insensitive prefix of `type` (lowercase) of at
 * least minmatch letters, ended by the string or by a non-letter. */
static const char *type_match(const char *s, const char *type, size_t minmatch)
{
    size_t i = 0;
    for (;; i++, s++, type++) {
        int letter = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '-';
        if (!*s || (*s != *type && *s != *type + 'A' - 'a' && !letter))
            return i < minmatch ? NULL : s;
        if (*s != *type && *s != *type + 'A' - 'a')
            return NULL;
    }
}

/* hwloc_type_sscanf as the XML import uses it (no attributes out). */
static int type_from_string(const char *s)
{
    static const struct {
        const char *name;
        size_t min;
        int type;
    } words[] = {
        {"osdev", 2, T_OSDEV}, {"block", 4, T_OSDEV}, {"network", 3, T_OSDEV}, {"openfabrics", 7, T_OSDEV},
        {"dma", 3, T_OSDEV}, {"gpu", 3, T_OSDEV}, {"coproc", 5, T_OSDEV}, {"co-processor", 6, T_OSDEV},
        {"machine", 2, T_MACHINE}, {"numanode", 2, T_NUMANODE}, {"node", 2, T_NUMANODE},
        {"memcache", 5, T_MEMCACHE}, {"memory-side cache", 8, T_MEMCACHE}, {"package", 2, T_PACKAGE},
        {"socket", 2, T_PACKAGE}, {"die", 2, T_DIE}, {"core", 2, T_CORE}, {"pu", 2, T_PU},
        {"misc", 4, T_MISC}, {"bridge", 4, T_BRIDGE}, {"hostbridge", 6, T_BRIDGE}, {"pcibridge", 5, T_BRIDGE},
        {"pcidev", 3, T_PCIDEV},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (type_match(s, words[i].name, words[i].min))
            return words[i].type;
    if ((s[0] == 'l' || s[0] == 'L') && s[1] >= '0' && s[1] <= '9') {
        char *end;
        long depth = strtol(s + 1, &end, 10);
        int type;
        if (*end == 'i' || *end == 'I') {
            if (depth < 1 || depth > 3)
                return T_NONE;
            type = T_L1I + (int)depth - 1;
            end++;
        } else {
            if (depth < 1 || depth > 5)
                return T_NONE;
            type = T_L1 + (int)depth - 1;
            if (*end == 'd' || *end == 'D' || *end == 'u' || *end == 'U')
                end++;
        }
        return type_match(end, "cache", 0) ? type : T_NONE;
    }
    return type_match(s, "group", 2) ? T_GROUP : T_NONE;
}

static int cache_type_by_depth(unsigned depth, int cache_type)
{
    if (cache_type == CACHE_INSTRUCTION)
        return depth >= 1 && depth <= 3 ? T_L1I + (int)depth - 1 : T_NONE;
    return depth >= 1 && depth <= 5 ? T_L1 + (int)depth - 1 : T_NONE;
}

/* ---- bitmaps (cpusets, nodesets) -------------------------------------------- */

/* hwloc's text form: 32-bit hex words, most significant first, separated by
 * commas, "0xf...f" first for an infinite set. */
typedef struct bitmap {
    uint32_t *w; /* least significant first */
    size_t n;
    int infinite;
} bitmap;

static void bitmap_free(bitmap *b)
{
    free(b->w);
    memset(b, 0, sizeof *b);
}

static int bitmap_parse(const char *s, bitmap *b)
{
    bitmap_free(b);
    size_t count = 1;
    for (const char *p = s; *p; p++)
        count += *p == ',';
    if (count > MAX_SET_WORDS)
        return -1;
    if (strncmp(s, "0xf...f", 7) == 0) {
        b->infinite = 1;
        s += 7;
        count--;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    b->w = calloc(count ? count : 1, sizeof *b->w);
    if (!b->w)
        return -1;
    b->n = count;
    for (size_t i = count; i-- > 0;) {
        if (strncmp(s, "0x", 2) == 0)
            s += 2;
        char *end;
        unsigned long v = strtoul(s, &end, 16);
        if (end == s && (*s == ',' || !*s))
            v = 0; /* hwloc leaves zero words out: "0x3,,0x1" */
        else if (end == s || end - s > 8 || (*end && *end != ','))
            return -1;
        b->w[i] = (uint32_t)v;
        s = *end ? end + 1 : end;
    }
    return *s ? -1 : 0;
}

static int bitmap_copy(bitmap *to, const bitmap *from)
{
    bitmap_free(to);
    to->w = calloc(from->n ? from->n : 1, sizeof *to->w);
    if (!to->w)
        return -1;
    if (from->n)
        memcpy(to->w, from->w, from->n * sizeof *to->w);
    to->n = from->n;
    to->infinite = from->infinite;
    return 0;
}

static uint32_t word_of(const bitmap *b, size_t i)
{
    return i < b->n ? b->w[i] : b->infinite ? 0xffffffffu : 0;
}

static int bitmap_iszero(const bitmap *b)
{
    if (b->infinite)
        return 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->w[i])
            return 0;
    return 1;
}

static int bitmap_equal(const bitmap *a, const bitmap *b)
{
    size_t n = a->n > b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++)
        if (word_of(a, i) != word_of(b, i))
            return 0;
    return a->infinite == b->infinite;
}

/* a &= b, in place (a's word count is kept, or b's if a is infinite). */
static int bitmap_and(bitmap *a, const bitmap *b)
{
    size_t n = a->infinite && b->n > a->n ? b->n : a->n;
    if (n > a->n) {
        uint32_t *g = realloc(a->w, n * sizeof *g);
        if (!g)
            return -1;
        for (size_t i = a->n; i < n; i++)
            g[i] = 0xffffffffu;
        a->w = g;
        a->n = n;
    }
    for (size_t i = 0; i < a->n; i++)
        a->w[i] &= word_of(b, i);
    a->infinite = a->infinite && b->infinite;
    return 0;
}

/* Index of the lowest set bit, or -1 if empty. */
static long bitmap_first(const bitmap *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->w[i])
            return (long)(i * 32 + (size_t)__builtin_ctz(b->w[i]));
    return b->infinite ? (long)(b->n * 32) : -1;
}

/* hwloc_bitmap_compare_first: an empty set sorts last. */
static int bitmap_compare_first(const bitmap *a, const bitmap *b)
{
    long fa = bitmap_first(a), fb = bitmap_first(b);
    if (fa < 0 || fb < 0)
        return fa < 0 ? (fb < 0 ? 0 : 1) : -1;
    return fa < fb ? -1 : fa > fb;
}

/* ---- the object tree ------------------------------------------------------------ */

enum { L_NORMAL, L_MEMORY, L_IO, L_MISC, L_COUNT };

typedef struct info {
    char *name, *value;
} info;

typedef struct hw_obj {
    int type;
    unsigned os_index;
    char *name, *subtype;
    info *infos;
    size_t ninfos;
    /* sets; has_* say whether the file gave them */
    bitmap cpuset, complete_cpuset, nodeset, complete_nodeset;
    int has_cpuset, has_complete_cpuset, has_nodeset, has_complete_nodeset;
    /* attributes */
    uint64_t cache_size, local_memory;
    unsigned cache_depth;
    int cache_type;
    unsigned group_kind, group_subkind, group_dont_merge, group_depth;
    unsigned pci_domain, pci_bus, pci_dev, pci_func, class_id;
    float link_speed;
    unsigned bridge_upstream;
    unsigned osdev_type;
    /* tree */
    int parent, next, prev;
    int first[L_COUNT], last[L_COUNT];
    int ignored, gone;
    int64_t logical_index;
    unsigned long line;
} hw_obj;

typedef struct tree {
    hw_obj *o;
    size_t n, cap;
    int root;
} tree;

static int list_of(int type)
{
    return is_memory(type) ? L_MEMORY : is_io(type) ? L_IO : type == T_MISC ? L_MISC : L_NORMAL;
}

static void obj_free(hw_obj *o)
{
    free(o->name);
    free(o->subtype);
    for (size_t i = 0; i < o->ninfos; i++) {
        free(o->infos[i].name);
        free(o->infos[i].value);
    }
    free(o->infos);
    bitmap_free(&o->cpuset);
    bitmap_free(&o->complete_cpuset);
    bitmap_free(&o->nodeset);
    bitmap_free(&o->complete_nodeset);
}

static void tree_free(tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        obj_free(&t->o[i]);
    free(t->o);
    memset(t, 0, sizeof *t);
}

/* A new object (index) or -1 when out of memory or over MAX_OBJECTS. */
static int tree_new(tree *t, int type, unsigned long line)
{
    if (t->n >= MAX_OBJECTS)
        return -1;
    if (ari_vec_reserve((void **)&t->o, &t->cap, t->n + 1, sizeof *t->o) < 0)
        return -1;
    hw_obj *o = &t->o[t->n];
    memset(o, 0, sizeof *o);
    o->type = type;
    o->os_index = UNKNOWN_INDEX;
    o->parent = o->next = o->prev = -1;
    for (int l = 0; l < L_COUNT; l++)
        o->first[l] = o->last[l] = -1;
    o->group_depth = UNKNOWN_INDEX;
    o->logical_index = -1;
    o->line = line;
    return (int)t->n++;
}

static void list_append(tree *t, int parent, int child)
{
    hw_obj *p = &t->o[parent], *c = &t->o[child];
    int l = list_of(c->type);
    c->parent = parent;
    c->next = -1;
    c->prev = p->last[l];
    if (p->last[l] >= 0)
        t->o[p->last[l]].next = child;
    else
        p->first[l] = child;
    p->last[l] = child;
}

static void list_unlink(tree *t, int child)
{
    hw_obj *c = &t->o[child], *p = &t->o[c->parent];
    int l = list_of(c->type);
    if (c->prev >= 0)
        t->o[c->prev].next = c->next;
    else
        p->first[l] = c->next;
    if (c->next >= 0)
        t->o[c->next].prev = c->prev;
    else
        p->last[l] = c->prev;
    c->prev = c->next = -1;
}

/* Moves the whole list l of `from` to the end (or the start) of `to`'s. */
static void list_move(tree *t, int from, int to, int l, int at_start)
{
    hw_obj *f = &t->o[from], *d = &t->o[to];
    if (f->first[l] < 0)
        return;
    for (int c = f->first[l]; c >= 0; c = t->o[c].next)
        t->o[c].parent = to;
    if (d->first[l] < 0) {
        d->first[l] = f->first[l];
        d->last[l] = f->last[l];
    } else if (at_start) {
        t->o[f->last[l]].next = d->first[l];
        t->o[d->first[l]].prev = f->last[l];
        d->first[l] = f->first[l];
    } else {
        t->o[d->last[l]].next = f->first[l];
        t->o[f->first[l]].prev = d->last[l];
        d->last[l] = f->last[l];
    }
    f->first[l] = f->last[l] = -1;
}

static size_t arity(const tree *t, int o)
{
    size_t n = 0;
    for (int c = t->o[o].first[L_NORMAL]; c >= 0; c = t->o[c].next)
        n++;
    return n;
}

/* ---- the expat reader ------------------------------------------------------------ */

/* What an open element is, for its children and its end. */
enum elem { E_TOPOLOGY, E_OBJECT, E_LEAF };

typedef struct open_elem {
    enum elem kind;
    int obj;           /* E_OBJECT: the object; -1 for others */
    int parent;        /* E_OBJECT: the parent its children go to (set at commit) */
    int committed;     /* E_OBJECT: checked and inserted */
    int seen_object;   /* E_OBJECT: a child <object> came (no more <info> then) */
} open_elem;

typedef struct reader {
    XML_Parser parser;
    const char *name;
    ari_error *err;
    int failed;
    unsigned version_major;
    tree t;
    open_elem stack[MAX_DEPTH + 4];
    int depth;      /* elements open */
    int skip;       /* > 0: inside an ignored element, this many levels */
    int root_done;
    int top_obj;    /* the object of the top <object> element */
    bitmap allowed_cpuset, allowed_nodeset;
    int has_allowed_cpuset, has_allowed_nodeset;
    uint64_t machine_memory;
    int nnuma;
    unsigned long root_line;
} reader;

static void fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s:%lu: %s", r->name,
                  (unsigned long)XML_GetCurrentLineNumber(r->parser), what);
    XML_StopParser(r->parser, XML_FALSE);
}

static void fail_nomem(reader *r)
{
    if (r->failed)
        return;
    r->failed = 1;
    ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    XML_StopParser(r->parser, XML_FALSE);
}

static int set_string(reader *r, char **field, const char *value)
{
    char *copy = strdup(value);
    if (!copy) {
        fail_nomem(r);
        return -1;
    }
    free(*field);
    *field = copy;
    return 0;
}

static int add_info(reader *r, hw_obj *o, const char *name, const char *value)
{
    if (o->ninfos >= MAX_INFOS) {
        fail(r, "more than %d <info> in one object", MAX_INFOS);
        return -1;
    }
    info *g = realloc(o->infos, (o->ninfos + 1) * sizeof *g);
    if (!g) {
        fail_nomem(r);
        return -1;
    }
    o->infos = g;
    info *i = &o->infos[o->ninfos];
    i->name = strdup(name);
    i->value = strdup(value);
    if (!i->name || !i->value) {
        free(i->name);
        free(i->value);
        fail_nomem(r);
        return -1;
    }
    o->ninfos++;
    return 0;
}

static int parse_set(reader *r, const char *attr, const char *value, bitmap *b, int *has)
{
    if (bitmap_parse(value, b) < 0) {
        fail(r, "bad %s '%.40s'", attr, value);
        return -1;
    }
    *has = 1;
    return 0;
}

static int pci_capable(const hw_obj *o) { return o->type == T_PCIDEV || o->type == T_BRIDGE; }
static int cache_capable(const hw_obj *o)
{
    return is_cache(o->type) || o->type == T_CACHE_OLD || o->type == T_MEMCACHE;
}

/* PCI and bridge attributes (hwloc ignores the object on a bad bus id). */
static void pci_attr(hw_obj *o, const char *attr, const char *v)
{
    unsigned a, b, c, d, e, f;
    if (strcmp(attr, "pci_busid") == 0) {
        if (sscanf(v, "%x:%02x:%02x.%01x", &a, &b, &c, &d) != 4 || a > 0xffff) {
            o->ignored = 1;
        } else {
            o->pci_domain = a;
            o->pci_bus = b & 0xff;
            o->pci_dev = c & 0xff;
            o->pci_func = d & 0xff;
        }
    } else if (strcmp(attr, "pci_type") == 0) {
        if (sscanf(v, "%x [%04x:%04x] [%04x:%04x] %02x", &a, &b, &c, &d, &e, &f) == 6)
            o->class_id = a & 0xffff;
    } else if (strcmp(attr, "pci_link_speed") == 0) {
        o->link_speed = (float)strtod(v, NULL);
    }
}

static void bridge_attr(hw_obj *o, const char *attr, const char *v)
{
    unsigned a, b, c;
    if (strcmp(attr, "bridge_type") == 0) {
        if (sscanf(v, "%u-%u", &a, &b) == 2)
            o->bridge_upstream = a;
    } else if (strcmp(attr, "bridge_pci") == 0) {
        if (sscanf(v, "%x:[%02x-%02x]", &a, &b, &c) != 3 || a > 0xffff)
            o->ignored = 1;
    }
}

/* One attribute of <object> (hwloc__xml_import_object_attr). */
static int object_attr(reader *r, hw_obj *o, int is_root, const char *attr, const char *v)
{
    if (strcmp(attr, "os_index") == 0)
        o->os_index = (unsigned)strtoul(v, NULL, 10);
    else if (strcmp(attr, "cpuset") == 0)
        return parse_set(r, attr, v, &o->cpuset, &o->has_cpuset);
    else if (strcmp(attr, "complete_cpuset") == 0)
        return parse_set(r, attr, v, &o->complete_cpuset, &o->has_complete_cpuset);
    else if (strcmp(attr, "nodeset") == 0)
        return parse_set(r, attr, v, &o->nodeset, &o->has_nodeset);
    else if (strcmp(attr, "complete_nodeset") == 0)
        return parse_set(r, attr, v, &o->complete_nodeset, &o->has_complete_nodeset);
    else if (strcmp(attr, "allowed_cpuset") == 0 && is_root)
        return parse_set(r, attr, v, &r->allowed_cpuset, &r->has_allowed_cpuset);
    else if (strcmp(attr, "allowed_nodeset") == 0 && is_root)
        return parse_set(r, attr, v, &r->allowed_nodeset, &r->has_allowed_nodeset);
    else if (strcmp(attr, "name") == 0)
        return set_string(r, &o->name, v);
    else if (strcmp(attr, "subtype") == 0)
        return set_string(r, &o->subtype, v);
    else if (strcmp(attr, "cache_size") == 0 && cache_capable(o))
        o->cache_size = strtoull(v, NULL, 10);
    else if (strcmp(attr, "cache_type") == 0 && cache_capable(o)) {
        unsigned long ct = strtoul(v, NULL, 10);
        if (ct <= CACHE_INSTRUCTION)
            o->cache_type = (int)ct;
    } else if (strcmp(attr, "local_memory") == 0) {
        if (o->type == T_NUMANODE)
            o->local_memory = strtoull(v, NULL, 10);
        else if (is_root)
            r->machine_memory = strtoull(v, NULL, 10);
    } else if (strcmp(attr, "depth") == 0 && cache_capable(o))
        o->cache_depth = (unsigned)strtoul(v, NULL, 10);
    else if (strcmp(attr, "kind") == 0 && o->type == T_GROUP)
        o->group_kind = (unsigned)strtoul(v, NULL, 10);
    else if (strcmp(attr, "subkind") == 0 && o->type == T_GROUP)
        o->group_subkind = (unsigned)strtoul(v, NULL, 10);
    else if (strcmp(attr, "dont_merge") == 0 && o->type == T_GROUP)
        o->group_dont_merge = (unsigned char)strtoul(v, NULL, 10);
    else if (strncmp(attr, "pci_", 4) == 0 && pci_capable(o))
        pci_attr(o, attr, v);
    else if (strncmp(attr, "bridge_", 7) == 0 && o->type == T_BRIDGE)
        bridge_attr(o, attr, v);
    else if (strcmp(attr, "osdev_type") == 0 && o->type == T_OSDEV) {
        unsigned ot;
        if (sscanf(v, "%u", &ot) == 1)
            o->osdev_type = ot;
    } else if (r->version_major < 2 && strcmp(attr, "dmi_board_vendor") == 0 && v[0])
        return add_info(r, o, "DMIBoardVendor", v);
    else if (r->version_major < 2 && strcmp(attr, "dmi_board_name") == 0 && v[0])
        return add_info(r, o, "DMIBoardName", v);
    return 0; /* anything else: ignored, as hwloc does */
}

/* The type attribute (first) and its pre-2.0 and future aliases. */
static int object_type(reader *r, int is_root, const char *v, int *group_kind)
{
    int type = type_from_string(v);
    if (type != T_NONE)
        return type;
    if (strcasecmp(v, "Cache") == 0)
        return T_CACHE_OLD;
    if (strcasecmp(v, "System") == 0) {
        if (is_root)
            return T_MACHINE;
        fail(r, "a System object is only allowed at the root");
        return T_NONE;
    }
    if (strcasecmp(v, "Tile") == 0 || strcasecmp(v, "Module") == 0) {
        *group_kind = strcasecmp(v, "Tile") == 0 ? GROUP_KIND_INTEL_TILE : GROUP_KIND_INTEL_MODULE;
        return T_GROUP;
    }
    fail(r, "unknown object type '%.40s'", v);
    return T_NONE;
}

static int new_object(reader *r, const char **attrs, int is_root)
{
    if (!attrs[0] || strcmp(attrs[0], "type") != 0) {
        fail(r, attrs[0] ? "object attribute '%.40s' before its type" : "object without a type%.0s",
             attrs[0] ? attrs[0] : "");
        return -1;
    }
    int kind = 0;
    int type = object_type(r, is_root, attrs[1], &kind);
    if (type == T_NONE)
        return -1;
    int me = tree_new(&r->t, type, (unsigned long)XML_GetCurrentLineNumber(r->parser));
    if (me < 0) {
        if (r->t.n >= MAX_OBJECTS)
            fail(r, "more than %d objects", MAX_OBJECTS);
        else
            fail_nomem(r);
        return -1;
    }
    hw_obj *o = &r->t.o[me];
    if (is_root)
        o->os_index = 0; /* libhwloc's root is made with P#0 before the file fills it */
    o->group_kind = (unsigned)kind;
    for (size_t i = 2; attrs[i] && !r->failed; i += 2) {
        if (strcmp(attrs[i], "type") == 0)
            continue;
        object_attr(r, &r->t.o[me], is_root, attrs[i], attrs[i + 1]);
    }
    return r->failed ? -1 : me;
}

static int info_elem(reader *r, hw_obj *o, const char **attrs)
{
    const char *name = NULL, *value = NULL;
    for (size_t i = 0; attrs[i]; i += 2) {
        if (strcmp(attrs[i], "name") == 0)
            name = attrs[i + 1];
        else if (strcmp(attrs[i], "value") == 0)
            value = attrs[i + 1];
        else {
            fail(r, "unexpected attribute '%.40s' in <info>", attrs[i]);
            return -1;
        }
    }
    if (!name || !value)
        return 0;
    if (r->version_major < 2 && (strcmp(name, "Type") == 0 || strcmp(name, "CoProcType") == 0))
        return set_string(r, &o->subtype, value); /* 1.x kept the subtype there */
    return add_info(r, o, name, value);
}

static int page_type_elem(reader *r, const hw_obj *o, int is_root, const char **attrs)
{
    for (size_t i = 0; attrs[i]; i += 2)
        if (strcmp(attrs[i], "size") != 0 && strcmp(attrs[i], "count") != 0) {
            fail(r, "unexpected attribute '%.40s' in <page_type>", attrs[i]);
            return -1;
        }
    if (o->type != T_NUMANODE && !is_root) {
        fail(r, "<page_type> in a %s object", type_name(o->type));
        return -1;
    }
    return 0;
}

/* ---- committing an object: hwloc's checks, filters and insertion ------------ */

/* Gives an object put above o (a memory Group, a Machine) o's sets: its
 * cpuset as both cpusets, its nodesets. -1 (reported) when out of memory. */
static int sets_above(reader *r, hw_obj *dst, const hw_obj *o)
{
    if (bitmap_copy(&dst->cpuset, &o->cpuset) < 0 || bitmap_copy(&dst->complete_cpuset, &o->cpuset) < 0 ||
        bitmap_copy(&dst->nodeset, &o->nodeset) < 0 || bitmap_copy(&dst->complete_nodeset, &o->complete_nodeset) < 0) {
        fail_nomem(r);
        return -1;
    }
    dst->has_cpuset = dst->has_complete_cpuset = o->has_cpuset;
    dst->has_nodeset = o->has_nodeset;
    dst->has_complete_nodeset = o->has_complete_nodeset;
    return 0;
}

/* The pre-2.0 NUMA node goes to memory children; a Group with its locality
 * is inserted first when it differs from its parent's. Returns the parent. */
static int v1_numa_parent(reader *r, int me, int parent)
{
    tree *t = &r->t;
    hw_obj *o = &t->o[me], *p = &t->o[parent];
    if (bitmap_equal(&o->complete_cpuset, &p->complete_cpuset))
        return parent;
    int sib = p->first[L_MEMORY];
    if (sib >= 0 && !t->o[sib].subtype && t->o[sib].next < 0 && o->subtype && strcmp(o->subtype, "MCDRAM") == 0 &&
        bitmap_iszero(&o->complete_cpuset))
        return parent; /* KNL's MCDRAM, beside its DDR */
    int g = tree_new(t, T_GROUP, o->line);
    if (g < 0) {
        fail_nomem(r);
        return -1;
    }
    o = &t->o[me];
    hw_obj *grp = &t->o[g];
    grp->group_kind = GROUP_KIND_MEMORY;
    if (sets_above(r, grp, o) < 0)
        return -1;
    list_append(t, parent, g);
    return g;
}

static int v1_fixups(reader *r, int me, int *parent)
{
    hw_obj *o = &r->t.o[me];
    if (*parent >= 0 && r->t.o[*parent].type == T_NUMANODE)
        *parent = r->t.o[*parent].parent; /* 1.x children of NUMA nodes */
    if (o->type == T_NUMANODE && *parent >= 0) {
        *parent = v1_numa_parent(r, me, *parent);
        if (*parent < 0)
            return -1;
        o = &r->t.o[me];
    }
    if (o->type == T_CACHE_OLD) {
        o->type = cache_type_by_depth(o->cache_depth, o->cache_type);
        if (o->type == T_NONE) {
            fail(r, "cache of depth %u and type %d", o->cache_depth, o->cache_type);
            return -1;
        }
    }
    if (o->type == T_MISC && o->has_cpuset)
        o->type = T_GROUP;
    int bad = o->has_cpuset != o->has_complete_cpuset || o->has_nodeset != o->has_complete_nodeset ||
              (o->has_nodeset && !o->has_cpuset);
    if (bad && o->type == T_GROUP)
        o->ignored = 1;
    else if (bad) {
        fail(r, "%s object with some of its cpusets or nodesets missing", type_name(o->type));
        return -1;
    }
    return 0;
}

static int check_parent_type(reader *r, const hw_obj *o, const hw_obj *p)
{
    const char *why = NULL;
    if (r->version_major >= 2) {
        if (is_normal(o->type) && !is_normal(p->type))
            why = "a normal object";
        else if (is_memory(o->type) && (is_io(p->type) || p->type == T_MISC))
            why = "a memory object";
        else if (is_io(o->type) && (is_memory(p->type) || p->type == T_MISC))
            why = "an I/O object";
    } else {
        if ((is_normal(o->type) || o->type == T_NUMANODE) && is_special(p->type))
            why = "a normal object";
        else if (is_io(o->type) && p->type == T_MISC)
            why = "an I/O object";
    }
    if (why)
        fail(r, "%s (%s) cannot be a child of %s", why, type_name(o->type),
             type_name(p->type));
    return why ? -1 : 0;
}

static int check_sets(reader *r, const hw_obj *o, int parent)
{
    const char *type = type_name(o->type);
    if (is_cache(o->type) && o->type != cache_type_by_depth(o->cache_depth, o->cache_type))
        fail(r, "%s with cache depth %u and type %d", type, o->cache_depth, o->cache_type);
    else if (!o->has_cpuset && !is_special(o->type))
        fail(r, "%s object without a cpuset", type);
    else if (o->has_cpuset && is_special(o->type))
        fail(r, "%s object with a cpuset", type);
    else if (parent >= 0 && o->has_cpuset && !r->t.o[parent].has_cpuset)
        fail(r, "%s object with a cpuset under a parent without one", type);
    else if (parent >= 0 && o->has_nodeset && !r->t.o[parent].has_nodeset)
        fail(r, "%s object with a nodeset under a parent without one", type);
    else if (o->type == T_NUMANODE && !o->has_nodeset)
        fail(r, "NUMANode without a nodeset");
    return r->failed ? -1 : 0;
}

/* Types that libhwloc drops by default (their children move up). */
static int filtered_out(int type)
{
    return type == T_L1I || type == T_L2I || type == T_L3I || type == T_MEMCACHE || type == T_MISC;
}

static int commit(reader *r, open_elem *e)
{
    if (e->committed)
        return 0;
    e->committed = 1;
    int me = e->obj, parent = e->parent;
    hw_obj *o = &r->t.o[me];
    if (parent >= 0 && o->type == T_MACHINE)
        o->type = T_GROUP; /* a Machine below the root is a Group */
    if (parent >= 0 && check_parent_type(r, o, &r->t.o[parent]) < 0)
        return -1;
    if (r->version_major < 2 && v1_fixups(r, me, &parent) < 0)
        return -1;
    o = &r->t.o[me];
    if (o->type == T_CACHE_OLD) {
        fail(r, "an untyped Cache object in a %u.x file (L1Cache, L2Cache... expected)", r->version_major);
        return -1;
    }
    if (o->type == T_GROUP && (o->group_kind == GROUP_KIND_INTEL_DIE || (o->subtype && strcmp(o->subtype, "Die") == 0)))
        o->type = T_DIE;
    if (check_sets(r, o, parent) < 0)
        return -1;
    if (o->type == T_NUMANODE)
        r->nnuma++;
    if (parent >= 0 && filtered_out(o->type))
        o->ignored = 1;
    if (parent < 0 && o->ignored) {
        fail(r, "the root object was refused");
        return -1;
    }
    if (parent >= 0 && !o->ignored)
        list_append(&r->t, parent, me);
    e->parent = o->ignored ? parent : me;
    return 0;
}

/* hwloc__reorder_children: normal children sorted by their first PU. */
static void reorder_children(tree *t, int me)
{
    int sorted = -1; /* a singly linked sorted list through .next */
    for (int c = t->o[me].first[L_NORMAL]; c >= 0;) {
        int next = t->o[c].next, *at = &sorted, prev = -1;
        while (*at >= 0 && bitmap_compare_first(&t->o[*at].complete_cpuset, &t->o[c].complete_cpuset) <= 0) {
            prev = *at;
            at = &t->o[*at].next;
        }
        t->o[c].next = *at;
        t->o[c].prev = prev;
        *at = c;
        c = next;
    }
    t->o[me].first[L_NORMAL] = sorted;
    int last = -1;
    for (int c = sorted; c >= 0; c = t->o[c].next) {
        t->o[c].prev = last;
        last = c;
    }
    t->o[me].last[L_NORMAL] = last;
}

static void end_object(reader *r, open_elem *e)
{
    if (commit(r, e) < 0)
        return;
    hw_obj *o = &r->t.o[e->obj];
    if (o->ignored) {
        o->gone = 1;
        return;
    }
    for (int c = o->first[L_NORMAL]; c >= 0 && r->t.o[c].next >= 0; c = r->t.o[c].next)
        if (bitmap_compare_first(&r->t.o[r->t.o[c].next].complete_cpuset, &r->t.o[c].complete_cpuset) < 0) {
            reorder_children(&r->t, e->obj);
            break;
        }
}

/* ---- expat callbacks ------------------------------------------------------------ */

/* Attribute names and values longer than MAX_ATTR_BYTES are refused (expat
 * holds them whole; the input as a whole is bounded by MAX_XML_BYTES). */
static int attrs_bounded(reader *r, const char **attrs)
{
    for (size_t i = 0; attrs[i]; i++)
        if (strlen(attrs[i]) > MAX_ATTR_BYTES) {
            fail(r, "an attribute longer than %d bytes", MAX_ATTR_BYTES);
            return 0;
        }
    return 1;
}

static void push(reader *r, enum elem kind, int obj, int parent)
{
    r->stack[r->depth++] = (open_elem){kind, obj, parent, 0, 0};
}

static void start_in_object(reader *r, open_elem *top, const char *el, const char **attrs)
{
    hw_obj *o = &r->t.o[top->obj];
    int is_root = top->obj == r->top_obj;
    if (strcmp(el, "object") == 0) {
        if (r->depth > MAX_DEPTH) {
            fail(r, "objects nested more than %d deep", MAX_DEPTH);
            return;
        }
        top->seen_object = 1;
        if (commit(r, top) < 0)
            return;
        int child = new_object(r, attrs, 0);
        if (child >= 0)
            push(r, E_OBJECT, child, top->parent);
        return;
    }
    if (top->seen_object) {
        fail(r, "<%.40s> after the child objects", el);
        return;
    }
    if (strcmp(el, "info") == 0) {
        if (info_elem(r, o, attrs) == 0)
            push(r, E_LEAF, -1, -1);
    } else if (strcmp(el, "page_type") == 0) {
        if (page_type_elem(r, o, is_root, attrs) == 0)
            push(r, E_LEAF, -1, -1);
    } else if (strcmp(el, "userdata") == 0 || (r->version_major < 2 && strcmp(el, "distances") == 0)) {
        r->skip = 1;
    } else {
        fail(r, "unexpected <%.40s> in an object", el);
    }
}

static void start_topology(reader *r, const char **attrs)
{
    r->version_major = 1; /* no version: 1.x */
    for (size_t i = 0; attrs[i]; i += 2) {
        unsigned major, minor;
        if (strcmp(attrs[i], "version") == 0 && sscanf(attrs[i + 1], "%u.%u", &major, &minor) == 2)
            r->version_major = major;
    }
    if (r->version_major > 2)
        fail(r, "hwloc XML version %u is not supported (2.x and 1.x are)", r->version_major);
    else
        push(r, E_TOPOLOGY, -1, -1);
}

/* A 1.x file whose root is a NUMA node (a filtered Machine): a Machine
 * with its sets is put above it, as libhwloc does. Returns the Machine. */
static int machine_above(reader *r, int numa)
{
    int m = tree_new(&r->t, T_MACHINE, r->root_line);
    if (m < 0) {
        fail_nomem(r);
        return -1;
    }
    hw_obj *o = &r->t.o[numa], *mo = &r->t.o[m];
    if (sets_above(r, mo, o) < 0)
        return -1;
    r->t.root = m;
    return m;
}

/* The infos of a former NUMA root go to the Machine too. */
static void copy_infos(reader *r, int from, int to)
{
    for (size_t i = 0; i < r->t.o[from].ninfos && !r->failed; i++)
        add_info(r, &r->t.o[to], r->t.o[from].infos[i].name, r->t.o[from].infos[i].value);
}

static void XMLCALL on_start(void *ctx, const char *el, const char **attrs)
{
    reader *r = ctx;
    if (r->failed)
        return;
    if (r->skip) {
        r->skip++;
        return;
    }
    if (!attrs_bounded(r, attrs))
        return;
    if (r->depth == 0) {
        if (strcmp(el, "topology") == 0)
            start_topology(r, attrs);
        else
            fail(r, "<%.40s> is not an hwloc topology (lstopo --of xml writes <topology>)", el);
        return;
    }
    open_elem *top = &r->stack[r->depth - 1];
    switch (top->kind) {
    case E_TOPOLOGY:
        if (r->root_done) {
            r->skip = 1; /* distances, support, memory attributes, CPU kinds */
        } else if (strcmp(el, "object") != 0) {
            fail(r, "<%.40s> before the root object", el);
        } else {
            r->root_line = (unsigned long)XML_GetCurrentLineNumber(r->parser);
            int root = new_object(r, attrs, 1);
            if (root < 0)
                return;
            r->t.root = r->top_obj = root;
            int parent = -1;
            if (r->t.o[root].type == T_NUMANODE && r->version_major < 2 && (parent = machine_above(r, root)) < 0)
                return;
            if (r->t.o[r->t.root].type != T_MACHINE) {
                fail(r, "the root object is a %s, not a Machine", type_name(r->t.o[root].type));
                return;
            }
            push(r, E_OBJECT, root, parent);
        }
        return;
    case E_OBJECT:
        start_in_object(r, top, el, attrs);
        return;
    default:
        fail(r, "unexpected <%.40s> inside <%s>", el, top->kind == E_LEAF ? "info or page_type" : "?");
        return;
    }
}

static void XMLCALL on_end(void *ctx, const char *el)
{
    reader *r = ctx;
    (void)el;
    if (r->failed)
        return;
    if (r->skip) {
        r->skip--;
        return;
    }
    open_elem *top = &r->stack[--r->depth];
    if (top->kind == E_OBJECT) {
        end_object(r, top);
        if (top->obj == r->top_obj) {
            r->root_done = 1;
            if (r->top_obj != r->t.root)
                copy_infos(r, r->top_obj, r->t.root);
        }
    }
}

/* Entities would let a few bytes expand to gigabytes: refuse any DTD
 * internal subset (hwloc writes only the DOCTYPE line). */
static void XMLCALL on_entity(void *ctx, const XML_Char *name, int is_param, const XML_Char *value, int len,
                              const XML_Char *base, const XML_Char *sys, const XML_Char *pub, const XML_Char *notation)
{
    (void)name, (void)is_param, (void)value, (void)len, (void)base, (void)sys, (void)pub, (void)notation;
    fail(ctx, "entity declarations are not allowed in a topology");
}

/* ---- after parsing: what libhwloc's core does to an imported tree ---------- */

/* remove_unused_sets: restricts sets to the allowed ones. */
static int restrict_sets(reader *r, int me)
{
    tree *t = &r->t;
    hw_obj *o = &t->o[me];
    if (o->has_cpuset && r->has_allowed_cpuset && bitmap_and(&o->cpuset, &r->allowed_cpuset) < 0)
        return -1;
    if (o->has_nodeset && r->has_allowed_nodeset && bitmap_and(&o->nodeset, &r->allowed_nodeset) < 0)
        return -1;
    for (int l = L_NORMAL; l <= L_MEMORY; l++)
        for (int c = t->o[me].first[l]; c >= 0; c = t->o[c].next)
            if (restrict_sets(r, c) < 0)
                return -1;
    return 0;
}

/* remove_empty: normal objects without PUs and memory without nodes go,
 * unless something is still attached below them. */
static void remove_empty(tree *t, int me)
{
    for (int l = L_NORMAL; l <= L_MEMORY; l++)
        for (int c = t->o[me].first[l]; c >= 0;) {
            int next = t->o[c].next;
            remove_empty(t, c);
            c = next;
        }
    hw_obj *o = &t->o[me];
    if (me == t->root || o->first[L_NORMAL] >= 0 || o->first[L_MEMORY] >= 0 || o->first[L_IO] >= 0)
        return;
    int empty = is_normal(o->type) ? o->has_cpuset && bitmap_iszero(&o->cpuset)
                                   : o->has_nodeset && bitmap_iszero(&o->nodeset);
    if (!empty)
        return;
    list_unlink(t, me);
    t->o[me].gone = 1;
}

/* A topology without NUMA node (1.x) gets one with the machine's memory. */
static int add_default_numa(reader *r)
{
    int n = tree_new(&r->t, T_NUMANODE, r->root_line);
    if (n < 0)
        return -1;
    r->t.o[n].os_index = 0;
    r->t.o[n].local_memory = r->machine_memory;
    list_append(&r->t, r->t.root, n);
    r->nnuma = 1;
    return 0;
}

/* ---- levels (hwloc_connect_levels) and Group merging ------------------------------ */

typedef struct levels {
    int **objs;
    size_t *count;
    size_t n, cap, count_cap;
} levels;

static void levels_free(levels *lv)
{
    for (size_t i = 0; i < lv->n; i++)
        free(lv->objs[i]);
    free(lv->objs);
    free(lv->count);
    memset(lv, 0, sizeof *lv);
}

enum { CMP_EQUAL, CMP_INCLUDED, CMP_CONTAINS, CMP_DIFFERENT };

static int type_cmp(const tree *t, int a, int b)
{
    int ta = t->o[a].type, tb = t->o[b].type;
    int d = type_order[ta] - type_order[tb];
    if (d > 0)
        return CMP_INCLUDED;
    if (d < 0)
        return CMP_CONTAINS;
    if (ta == T_GROUP && (t->o[a].group_kind != t->o[b].group_kind || t->o[a].group_subkind != t->o[b].group_subkind))
        return CMP_DIFFERENT;
    return CMP_EQUAL;
}

static int find_same_type(const tree *t, int root, int obj)
{
    for (int c = t->o[root].first[L_NORMAL]; c >= 0; c = t->o[c].next)
        if (type_cmp(t, c, obj) == CMP_EQUAL || find_same_type(t, c, obj))
            return 1;
    return 0;
}

static int levels_push(levels *lv, int *objs, size_t n)
{
    if (ari_vec_reserve((void **)&lv->objs, &lv->cap, lv->n + 1, sizeof *lv->objs) < 0 ||
        ari_vec_reserve((void **)&lv->count, &lv->count_cap, lv->n + 1, sizeof *lv->count) < 0)
        return -1;
    lv->objs[lv->n] = objs;
    lv->count[lv->n++] = n;
    return 0;
}

/* The next level from the objects still to place (objs): the topmost type
 * is taken, the others stay; returns the objects left for the next round. */
static int take_level(tree *t, levels *lv, int **objs, size_t *n)
{
    size_t i;
    for (i = 0; i < *n && t->o[(*objs)[i]].type == T_PU; i++)
        ;
    int top = i == *n ? (*objs)[0] : (*objs)[i];
    for (i = 0; i < *n; i++)
        if (type_cmp(t, top, (*objs)[i]) != CMP_EQUAL && find_same_type(t, (*objs)[i], top))
            top = (*objs)[i];
    size_t room = 0;
    for (i = 0; i < *n; i++)
        room += arity(t, (*objs)[i]) ? arity(t, (*objs)[i]) : 1;
    int *taken = malloc(*n * sizeof *taken), *next = malloc((room ? room : 1) * sizeof *next);
    if (!taken || !next) {
        free(taken);
        free(next);
        return -1;
    }
    size_t ntaken = 0, nnext = 0;
    for (i = 0; i < *n; i++) {
        int o = (*objs)[i];
        if (type_cmp(t, top, o) == CMP_EQUAL) {
            taken[ntaken++] = o;
            for (int c = t->o[o].first[L_NORMAL]; c >= 0; c = t->o[c].next)
                next[nnext++] = c;
        } else {
            next[nnext++] = o;
        }
    }
    if (levels_push(lv, taken, ntaken) < 0) {
        free(taken);
        free(next);
        return -1;
    }
    free(*objs);
    *objs = next;
    *n = nnext;
    return 0;
}

static int connect_levels(tree *t, levels *lv)
{
    levels_free(lv);
    int *root = malloc(sizeof *root);
    if (!root || (root[0] = t->root, levels_push(lv, root, 1)) < 0) {
        free(root);
        return -1;
    }
    size_t n = arity(t, t->root), i = 0;
    int *objs = malloc((n ? n : 1) * sizeof *objs);
    if (!objs)
        return -1;
    for (int c = t->o[t->root].first[L_NORMAL]; c >= 0; c = t->o[c].next)
        objs[i++] = c;
    while (n > 0)
        if (take_level(t, lv, &objs, &n) < 0) {
            free(objs);
            return -1;
        }
    free(objs);
    return 0;
}

static int level_dont_merge(const tree *t, const levels *lv, size_t i)
{
    for (size_t j = 0; j < lv->count[i]; j++)
        if (t->o[lv->objs[i][j]].group_dont_merge)
            return 1;
    return 0;
}

/* hwloc_compare_levels_structure: level i is level i-1 with arity one. */
static int same_structure(const tree *t, const levels *lv, size_t i)
{
    int pu = t->o[lv->objs[i][0]].type == T_PU;
    if (lv->count[i - 1] != lv->count[i])
        return 0;
    for (size_t j = 0; j < lv->count[i]; j++) {
        int p = lv->objs[i - 1][j];
        if (t->o[lv->objs[i][j]].parent != p || arity(t, p) != 1 || (pu && t->o[p].first[L_MEMORY] >= 0))
            return 0;
    }
    return 1;
}

/* Removes `child`, the only normal child of its parent: its children move up. */
static void drop_child(tree *t, int child)
{
    int parent = t->o[child].parent;
    list_unlink(t, child);
    for (int l = 0; l < L_COUNT; l++)
        list_move(t, child, parent, l, 0);
    t->o[child].gone = 1;
}

/* Removes `parent`: its only normal child takes its place. */
static void drop_parent(tree *t, int parent)
{
    int child = t->o[parent].first[L_NORMAL], gp = t->o[parent].parent;
    hw_obj *c = &t->o[child], *p = &t->o[parent];
    p->first[L_NORMAL] = p->last[L_NORMAL] = -1;
    c->prev = p->prev;
    c->next = p->next;
    c->parent = gp;
    if (p->prev >= 0)
        t->o[p->prev].next = child;
    else
        t->o[gp].first[L_NORMAL] = child;
    if (p->next >= 0)
        t->o[p->next].prev = child;
    else
        t->o[gp].last[L_NORMAL] = child;
    for (int l = L_MEMORY; l < L_COUNT; l++)
        list_move(t, parent, child, l, 1);
    p->gone = 1;
}

/* hwloc_filter_levels_keep_structure for Groups (the only such type). */
static int merge_groups(tree *t, levels *lv)
{
    for (size_t i = lv->n - 1; i > 0; i--) {
        int t1 = t->o[lv->objs[i - 1][0]].type, t2 = t->o[lv->objs[i][0]].type;
        int replace_parent = t1 == T_GROUP && !level_dont_merge(t, lv, i - 1);
        int replace_child = t2 == T_GROUP && !(t1 == T_GROUP && level_dont_merge(t, lv, i));
        if (!replace_parent && !replace_child)
            continue;
        if (replace_parent && replace_child) {
            if (type_priority[t1] >= type_priority[t2])
                replace_parent = 0;
            else
                replace_child = 0;
        }
        if (!same_structure(t, lv, i))
            continue;
        for (size_t j = 0; j < lv->count[i]; j++) {
            if (replace_child)
                drop_child(t, lv->objs[i][j]);
            else if (lv->objs[i - 1][j] != t->root)
                drop_parent(t, lv->objs[i - 1][j]);
        }
        if (connect_levels(t, lv) < 0)
            return -1;
        if (i > lv->n)
            i = lv->n;
    }
    return 0;
}

/* Logical indices: by level for normal objects, in depth-first order per
 * type for memory and I/O objects (hwloc's special levels). */
static void number_special(tree *t, int me, int64_t *next)
{
    hw_obj *o = &t->o[me];
    if (!is_normal(o->type))
        o->logical_index = next[o->type]++;
    for (int l = 0; l < L_COUNT; l++)
        for (int c = o->first[l]; c >= 0; c = t->o[c].next)
            number_special(t, c, next);
}

static void number_objects(tree *t, const levels *lv)
{
    unsigned group_depth = 0;
    for (size_t i = 0; i < lv->n; i++) {
        int group = t->o[lv->objs[i][0]].type == T_GROUP;
        for (size_t j = 0; j < lv->count[i]; j++) {
            t->o[lv->objs[i][j]].logical_index = (int64_t)j;
            if (group)
                t->o[lv->objs[i][j]].group_depth = group_depth;
        }
        group_depth += group;
    }
    int64_t next[T_COUNT] = {0};
    number_special(t, t->root, next);
}

/* ---- the tree as components (the same walk for both sources) ---------------- */

/* One object as the walk sees it, from libhwloc or from our tree. */
typedef struct view {
    const char *type;     /* hwloc_obj_type_string */
    char short_type[64];  /* hwloc_obj_type_snprintf, not verbose */
    const char *name;
    const char *subtype;
    int64_t os_index, logical_index;
    int is_osdev, osdev_type, is_machine, is_numa, is_pci, is_bridge, is_cache;
    uint64_t cache_size, local_memory;
    char busid[32];
    double link_speed;
    unsigned class_id;
} view;

typedef struct walk {
    ari_topology *t;
    int nnuma;
    int has_cuda;
    int failed;
} walk;

static int is_gpu_view(const view *v)
{
    if (!v->is_osdev || !v->name)
        return 0;
    if (v->osdev_type != OSDEV_GPU && v->osdev_type != OSDEV_COPROC)
        return 0;
    return strncmp(v->name, "cuda", 4) == 0 || strncmp(v->name, "nvml", 4) == 0 ||
           strncmp(v->name, "opencl", 6) == 0 || strncmp(v->name, "rsmi", 4) == 0;
}

static void key_of(const walk *w, const view *v, char *key, size_t size)
{
    key[0] = '\0';
    if (v->is_numa)
        snprintf(key, size, w->nnuma == 1 ? "host" : "numa%u", (unsigned)v->os_index);
    else if (v->is_machine && w->nnuma != 1)
        snprintf(key, size, "host");
    else if (is_gpu_view(v)) {
        int n = -1;
        if (sscanf(v->name, "cuda%d", &n) == 1 || (!w->has_cuda && sscanf(v->name, "nvml%d", &n) == 1))
            snprintf(key, size, "gpu%d", n);
    }
}

typedef struct kv {
    const char *name, *value;
} kv;

static char *attrs_of(const view *v, const kv *infos, size_t ninfos)
{
    json_t *a = json_object();
    if (!a)
        return NULL;
    if (v->is_cache)
        json_object_set_new(a, "cache_size", json_integer((json_int_t)v->cache_size));
    if (v->is_numa)
        json_object_set_new(a, "local_memory", json_integer((json_int_t)v->local_memory));
    if (v->is_pci) {
        json_object_set_new(a, "pci_busid", json_string(v->busid));
        json_object_set_new(a, "link_speed", json_real(v->link_speed));
        json_object_set_new(a, "class_id", json_integer(v->class_id));
    }
    for (size_t i = 0; i < ninfos; i++)
        if (infos[i].name && infos[i].value)
            json_object_set_new(a, infos[i].name, json_string(infos[i].value));
    if (v->subtype)
        json_object_set_new(a, "subtype", json_string(v->subtype));
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return text;
}

/* Appends one component; returns its index or -1. */
static int emit(walk *w, const view *v, const kv *infos, size_t ninfos, int parent)
{
    char key[24], name[128];
    key_of(w, v, key, sizeof key);
    if (v->name)
        snprintf(name, sizeof name, "%s", v->name);
    else if (v->is_machine || v->is_bridge || v->is_pci)
        snprintf(name, sizeof name, "%s", v->short_type);
    else
        snprintf(name, sizeof name, "%s #%u", v->short_type, (unsigned)v->logical_index);
    char *attrs = attrs_of(v, infos, ninfos);
    int me = attrs ? ari_topology_add(w->t, parent, is_gpu_view(v) ? "GPU" : v->type, name, v->os_index, key, attrs)
                   : -1;
    free(attrs);
    if (me < 0) {
        w->failed = 1;
        return -1;
    }
    w->t->comps[me].logical_index = v->logical_index;
    return me;
}

/* ---- from our tree ---- */

static void short_type_of(const hw_obj *o, char *out, size_t size)
{
    static const char *const osdev[] = {"Block", "GPU", "Net", "OpenFabrics", "DMA", "CoProc"};
    static const char *const letter[] = {"", "d", "i"};
    if (is_cache(o->type))
        snprintf(out, size, "L%u%s", o->cache_depth, letter[o->cache_type]);
    else if (o->type == T_GROUP && o->group_depth != UNKNOWN_INDEX)
        snprintf(out, size, "Group%u", o->group_depth);
    else if (o->type == T_BRIDGE)
        snprintf(out, size, "%s", o->bridge_upstream == 1 ? "PCIBridge" : "HostBridge");
    else if (o->type == T_PCIDEV)
        snprintf(out, size, "PCI");
    else if (o->type == T_OSDEV)
        snprintf(out, size, "%s", o->osdev_type < 6 ? osdev[o->osdev_type] : "");
    else
        snprintf(out, size, "%s", type_name(o->type));
}

static void view_of_obj(const hw_obj *o, view *v)
{
    memset(v, 0, sizeof *v);
    v->type = type_name(o->type);
    short_type_of(o, v->short_type, sizeof v->short_type);
    v->name = o->name;
    v->subtype = o->subtype;
    v->os_index = o->os_index == UNKNOWN_INDEX ? -1 : (int64_t)o->os_index;
    v->logical_index = o->logical_index;
    v->is_osdev = o->type == T_OSDEV;
    v->osdev_type = (int)o->osdev_type;
    v->is_machine = o->type == T_MACHINE;
    v->is_numa = o->type == T_NUMANODE;
    v->is_pci = o->type == T_PCIDEV;
    v->is_bridge = o->type == T_BRIDGE;
    v->is_cache = is_cache(o->type);
    v->cache_size = o->cache_size;
    v->local_memory = o->local_memory;
    snprintf(v->busid, sizeof v->busid, "%04x:%02x:%02x.%01x", o->pci_domain, o->pci_bus, o->pci_dev, o->pci_func);
    v->link_speed = o->link_speed;
    v->class_id = o->class_id;
}

static void walk_tree(walk *w, const tree *t, int me, int parent)
{
    const hw_obj *o = &t->o[me];
    if (w->failed || o->type == T_MISC)
        return;
    view v;
    view_of_obj(o, &v);
    kv infos[MAX_INFOS];
    for (size_t i = 0; i < o->ninfos; i++)
        infos[i] = (kv){o->infos[i].name, o->infos[i].value};
    int c = emit(w, &v, infos, o->ninfos, parent);
    if (c < 0)
        return;
    static const int order[] = {L_MEMORY, L_NORMAL, L_IO};
    for (size_t l = 0; l < 3; l++)
        for (int ch = o->first[order[l]]; ch >= 0; ch = t->o[ch].next)
            walk_tree(w, t, ch, c);
}

static int has_cuda_tree(const tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        view v;
        if (t->o[i].gone || t->o[i].type != T_OSDEV)
            continue;
        view_of_obj(&t->o[i], &v);
        if (is_gpu_view(&v) && strncmp(v.name, "cuda", 4) == 0)
            return 1;
    }
    return 0;
}

/* Shapes the parsed tree as libhwloc does, then walks it. */
static int finish_tree(reader *r, ari_topology *out)
{
    tree *t = &r->t;
    hw_obj *root = &t->o[t->root];
    const char *why = NULL;
    if (!root->has_cpuset)
        why = "the root object has no cpuset";
    else if (r->version_major >= 2 && (!root->has_nodeset || bitmap_iszero(&root->nodeset)))
        why = "the root object has no nodeset";
    if (why)
        return ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s:%lu: %s", r->name, r->root_line, why);
    if (restrict_sets(r, t->root) < 0 || (r->nnuma == 0 && add_default_numa(r) < 0))
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    remove_empty(t, t->root);
    root = &t->o[t->root];
    if (bitmap_iszero(&root->cpuset))
        return ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s:%lu: the topology has no PU", r->name, r->root_line);
    levels lv = {0};
    int rc = connect_levels(t, &lv) < 0 || merge_groups(t, &lv) < 0 ? -1 : 0;
    if (rc == 0)
        number_objects(t, &lv);
    levels_free(&lv);
    if (rc < 0)
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    int nnuma = 0;
    for (size_t i = 0; i < t->n; i++)
        nnuma += !t->o[i].gone && t->o[i].type == T_NUMANODE;
    walk w = {out, nnuma, has_cuda_tree(t), 0};
    walk_tree(&w, t, t->root, -1);
    if (w.failed) {
        ari_topology_free(out);
        return ari_error_set(r->err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}

/* ---- entry points for XML ---- */

static int reader_init(reader *r, const char *name, ari_error *err)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->err = err;
    r->t.root = -1;
    r->parser = XML_ParserCreate(NULL);
    if (!r->parser)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    XML_SetUserData(r->parser, r);
    XML_SetElementHandler(r->parser, on_start, on_end);
    XML_SetEntityDeclHandler(r->parser, on_entity);
    return 0;
}

static void reader_free(reader *r)
{
    if (r->parser)
        XML_ParserFree(r->parser);
    tree_free(&r->t);
    bitmap_free(&r->allowed_cpuset);
    bitmap_free(&r->allowed_nodeset);
}

/* Feeds one chunk (final on the last); returns 0 or -1 with the error set. */
static int feed(reader *r, const char *buf, size_t len, int final)
{
    if (XML_Parse(r->parser, buf, (int)len, final) == XML_STATUS_OK && !r->failed)
        return 0;
    if (!r->failed) {
        r->failed = 1;
        ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s:%lu: not well-formed XML: %s", r->name,
                      (unsigned long)XML_GetCurrentLineNumber(r->parser), XML_ErrorString(XML_GetErrorCode(r->parser)));
    }
    return -1;
}

static int finish(reader *r, ari_topology *t)
{
    if (!r->root_done)
        return ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s:%lu: no root <object> in <topology>", r->name,
                             (unsigned long)XML_GetCurrentLineNumber(r->parser));
    return finish_tree(r, t);
}

int ari_topology_from_xml_buffer(const char *xml, size_t len, const char *name, ari_topology *t, ari_error *err)
{
    memset(t, 0, sizeof *t);
    if (len > 0 && xml[len - 1] == '\0')
        len--; /* callers used to pass the terminating NUL to libhwloc */
    if (len > MAX_XML_BYTES)
        return ari_error_set(err, ARI_E_TOO_LARGE, "%s: topology XML larger than %zu MiB", name, MAX_XML_BYTES >> 20);
    reader r;
    if (reader_init(&r, name, err) < 0)
        return -1;
    int rc = feed(&r, xml, len, 1);
    if (rc == 0)
        rc = finish(&r, t);
    reader_free(&r);
    return rc;
}

int ari_topology_from_xml(const char *path, const char *name, ari_topology *t, ari_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ari_error_set(err, ARI_E_IO, "%s: cannot open", name);
    reader r;
    if (reader_init(&r, name, err) < 0) {
        fclose(f);
        return -1;
    }
    char buf[65536];
    size_t got, total = 0;
    int rc = 0;
    while (rc == 0 && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        total += got;
        if (total > MAX_XML_BYTES)
            rc = ari_error_set(err, ARI_E_TOO_LARGE, "%s: topology XML larger than %zu MiB", name, MAX_XML_BYTES >> 20);
        else
            rc = feed(&r, buf, got, 0);
    }
    if (rc == 0 && ferror(f))
        rc = ari_error_set(err, ARI_E_IO, "%s: read error", name);
    if (rc == 0)
        rc = feed(&r, "", 0, 1);
    if (rc == 0)
        rc = finish(&r, t);
    fclose(f);
    reader_free(&r);
    return rc;
}

/* ---- this machine, through libhwloc (trusted) ------------------------------------ */

static void view_of_hwloc(hwloc_obj_t o, view *v)
{
    memset(v, 0, sizeof *v);
    v->type = hwloc_obj_type_string(o->type);
    hwloc_obj_type_snprintf(v->short_type, sizeof v->short_type, o, 0);
    v->name = o->name;
    v->subtype = o->subtype;
    v->os_index = o->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (int64_t)o->os_index;
    v->logical_index = o->logical_index;
    v->is_osdev = o->type == HWLOC_OBJ_OS_DEVICE;
    v->osdev_type = v->is_osdev ? (int)o->attr->osdev.type : 0;
    v->is_machine = o->type == HWLOC_OBJ_MACHINE;
    v->is_numa = o->type == HWLOC_OBJ_NUMANODE;
    v->is_pci = o->type == HWLOC_OBJ_PCI_DEVICE;
    v->is_bridge = o->type == HWLOC_OBJ_BRIDGE;
    v->is_cache = hwloc_obj_type_is_cache(o->type);
    if (v->is_cache)
        v->cache_size = o->attr->cache.size;
    if (v->is_numa)
        v->local_memory = o->attr->numanode.local_memory;
    if (v->is_pci) {
        snprintf(v->busid, sizeof v->busid, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                 o->attr->pcidev.dev, o->attr->pcidev.func);
        v->link_speed = o->attr->pcidev.linkspeed;
        v->class_id = o->attr->pcidev.class_id;
    }
}

static void walk_hwloc(walk *w, hwloc_obj_t o, int parent)
{
    if (w->failed || o->type == HWLOC_OBJ_MISC)
        return;
    view v;
    view_of_hwloc(o, &v);
    kv infos[MAX_INFOS];
    size_t n = o->infos_count < MAX_INFOS ? o->infos_count : MAX_INFOS;
    for (size_t i = 0; i < n; i++)
        infos[i] = (kv){o->infos[i].name, o->infos[i].value};
    int me = emit(w, &v, infos, n, parent);
    if (me < 0)
        return;
    for (hwloc_obj_t c = o->memory_first_child; c; c = c->next_sibling)
        walk_hwloc(w, c, me);
    for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling)
        walk_hwloc(w, c, me);
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
        walk_hwloc(w, c, me);
}

int ari_topology_this_machine(ari_topology *t, ari_error *err)
{
    memset(t, 0, sizeof *t);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "hwloc: cannot create a topology");
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    /* PCI devices come from Linux's sysfs; the libpciaccess-based "pci"
     * plugin finds the same ones but leaks on every load, and the server
     * loads the topology per request. */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    int rc = 0;
    if (hwloc_topology_load(topo) < 0) {
        rc = ari_error_set(err, ARI_E_IO, "hwloc: cannot load this machine's topology");
    } else {
        walk w = {t, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), 0, 0};
        for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o)) != NULL;) {
            view v;
            view_of_hwloc(o, &v);
            if (is_gpu_view(&v) && strncmp(v.name, "cuda", 4) == 0)
                w.has_cuda = 1;
        }
        walk_hwloc(&w, hwloc_get_root_obj(topo), -1);
        if (w.failed) {
            ari_topology_free(t);
            rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
        }
    }
    hwloc_topology_destroy(topo);
    return rc;
}
