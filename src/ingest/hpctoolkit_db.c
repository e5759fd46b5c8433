/* hpctoolkit_db.c: the reader of HPCToolkit's 4.x database (meta.db,
 * profile.db, trace.db) as a profile and as an event trace (see
 * hpctoolkit_db.h). The files are mapped read-only; every structure is
 * bounds-checked against its file before it is read, every count against
 * the bytes that could hold it, so any input costs memory and time in
 * proportion to its size.
 */
#include "ingest/hpctoolkit_db.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BAD   ARI_E_INVALID_INPUT
#define NPROP 65536 /* metric ids are u16 */

/* ---- bytes ---- */

typedef struct dbf {
    const unsigned char *p;
    size_t n;
    const char *name;
} dbf;

typedef unsigned long long ull;

static int span(const dbf *f, uint64_t off, uint64_t len, const char *what, ari_error *err)
{
    if (off > f->n || len > f->n - off)
        return ari_error_set(err, BAD,
                             "%s: %s at byte %llu (%llu bytes) runs past the end of the file (%zu bytes)",
                             f->name, what, (ull)off, (ull)len, f->n);
    return 0;
}

static uint64_t le(const unsigned char *p, int w)
{
    uint64_t v = 0;
    for (int i = w - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Readers of checked offsets. */
static unsigned u8(const dbf *f, uint64_t o)
{
    return f->p[o];
}
static unsigned u16(const dbf *f, uint64_t o)
{
    return (unsigned)le(f->p + o, 2);
}
static uint32_t u32(const dbf *f, uint64_t o)
{
    return (uint32_t)le(f->p + o, 4);
}
static uint64_t u64(const dbf *f, uint64_t o)
{
    return le(f->p + o, 8);
}

static double f64(const dbf *f, uint64_t o)
{
    uint64_t bits = u64(f, o);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* A NUL-terminated string at `off`, or NULL with the error set. */
static const char *str_at(const dbf *f, uint64_t off, const char *what, ari_error *err)
{
    if (off >= f->n || !memchr(f->p + off, 0, f->n - off)) {
        ari_error_set(err, BAD, "%s: %s at byte %llu is not a string inside the file", f->name, what,
                      (ull)off);
        return NULL;
    }
    return (const char *)f->p + off;
}

/* The common header: magic, format, major version 4, and `nsec` sections
 * that lie inside the file. */
static int header(const dbf *f, const char *format, int nsec, uint64_t *sz, uint64_t *ptr, ari_error *err)
{
    if (f->n < 16)
        return ari_error_set(err, BAD, "%s: truncated header (%zu bytes)", f->name, f->n);
    if (memcmp(f->p, "HPCTOOLKIT", 10) != 0)
        return ari_error_set(err, BAD, "%s: wrong magic (not an HPCToolkit database file)", f->name);
    if (memcmp(f->p + 10, format, 4) != 0)
        return ari_error_set(err, BAD, "%s: format \"%.4s\" where \"%s\" was expected", f->name,
                             (const char *)f->p + 10, format);
    if (f->p[14] != 4)
        return ari_error_set(err, BAD, "%s: major version %u is not supported (4 is)", f->name, f->p[14]);
    if (f->n < 16 + 16 * (size_t)nsec)
        return ari_error_set(err, BAD, "%s: truncated header (%zu bytes)", f->name, f->n);
    for (int i = 0; i < nsec; i++) {
        sz[i] = u64(f, 16 + 16 * (uint64_t)i);
        ptr[i] = u64(f, 24 + 16 * (uint64_t)i);
        char what[32];
        snprintf(what, sizeof what, "section %d", i + 1);
        if (span(f, ptr[i], sz[i], what, err) < 0)
            return -1;
    }
    return 0;
}

/* A section's fixed header of `need` bytes. */
static int section_head(const dbf *f, uint64_t sz, uint64_t ptr, uint64_t need, const char *what,
                        ari_error *err)
{
    if (sz < need)
        return ari_error_set(err, BAD,
                             "%s: %s section at byte %llu is %llu bytes, less than its %llu-byte header",
                             f->name, what, (ull)ptr, (ull)sz, (ull)need);
    return 0;
}

/* An array of n elements of `stride` (>= min) bytes at p, inside the file. */
static int array_at(const dbf *f, uint64_t p, uint64_t n, uint64_t stride, uint64_t min, const char *what,
                    ari_error *err)
{
    if (stride < min)
        return ari_error_set(err, BAD, "%s: %s elements of %llu bytes (at least %llu expected)", f->name,
                             what, (ull)stride, (ull)min);
    if (n > f->n / stride)
        return ari_error_set(err, BAD, "%s: %llu %s cannot fit in the file", f->name, (ull)n, what);
    return span(f, p, n * stride, what, err);
}

/* ---- meta.db ---- */

enum { LEX_FUNCTION = 0, LEX_LOOP = 1, LEX_LINE = 2, LEX_INSTRUCTION = 3, LEX_ENTRY = 255 };

typedef struct hctx {
    uint32_t id;
    int32_t parent; /* index of the parent context, -1 for an entry point */
    int32_t node;   /* the context that stands for it in the profile (instructions fold into their parent) */
    int32_t tnode;  /* ... and in the trace (lines and instructions fold, as in Pipit) */
    int32_t depth;  /* depth of tnode in the trace tree */
    int lexical;
    const char *func, *module, *file;
    uint32_t line;
    int64_t region; /* the event sink's handle, -1 until made */
} hctx;

typedef struct idmap {
    uint32_t id;
    int32_t index;
} idmap;

typedef struct range {
    uint64_t base, n, stride;
} range;

typedef struct hmetric {
    const char *name;
    int point, exec; /* propMetricIds, -1 if absent */
} hmetric;

typedef struct meta {
    dbf f;
    ari_error *err;
    const char *title;
    const char *kinds[256];
    unsigned nkinds;
    hmetric *metrics;
    size_t nmetrics;
    range fns, files, mods;
    uint64_t ctx_lo, ctx_hi; /* the context tree section */
    hctx *ctx;
    size_t nctx, cap;
    idmap *ids;
    int32_t max_depth;
} meta;

static void meta_free(meta *m)
{
    free(m->metrics);
    free(m->ctx);
    free(m->ids);
}

static int read_general(meta *m, uint64_t sz, uint64_t p)
{
    if (section_head(&m->f, sz, p, 16, "General Properties", m->err) < 0)
        return -1;
    m->title = str_at(&m->f, u64(&m->f, p), "the title", m->err);
    return m->title ? 0 : -1;
}

static int read_id_names(meta *m, uint64_t sz, uint64_t p)
{
    const dbf *f = &m->f;
    if (section_head(f, sz, p, 9, "Identifier Names", m->err) < 0)
        return -1;
    uint64_t pp = u64(f, p);
    m->nkinds = u8(f, p + 8);
    if (array_at(f, pp, m->nkinds, 8, 8, "identifier names", m->err) < 0)
        return -1;
    for (unsigned i = 0; i < m->nkinds; i++)
        if (!(m->kinds[i] = str_at(f, u64(f, pp + 8 * i), "an identifier name", m->err)))
            return -1;
    return 0;
}

/* The metrics, with the ids of their "point" and "execution" scopes. */
static int read_metrics(meta *m, uint64_t sz, uint64_t p)
{
    const dbf *f = &m->f;
    if (section_head(f, sz, p, 0x1b, "Performance Metrics", m->err) < 0)
        return -1;
    uint64_t pm = u64(f, p), n = u32(f, p + 8), szm = u8(f, p + 12), szpsi = u8(f, p + 13);
    if (array_at(f, pm, n, szm, 0x1c, "metric descriptions", m->err) < 0)
        return -1;
    m->metrics = calloc(n ? n : 1, sizeof *m->metrics);
    if (!m->metrics)
        return ari_error_set(m->err, ARI_E_NOMEM, "out of memory");
    m->nmetrics = n;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t q = pm + i * szm;
        hmetric *h = &m->metrics[i];
        h->point = h->exec = -1;
        if (!(h->name = str_at(f, u64(f, q), "a metric name", m->err)))
            return -1;
        uint64_t ppsi = u64(f, q + 8), npsi = u16(f, q + 0x18);
        if (array_at(f, ppsi, npsi, szpsi, 10, "propagated metrics", m->err) < 0)
            return -1;
        for (uint64_t j = 0; j < npsi; j++) {
            uint64_t s = u64(f, ppsi + j * szpsi);
            unsigned id = u16(f, ppsi + j * szpsi + 8);
            if (span(f, s, 9, "a propagation scope", m->err) < 0)
                return -1;
            const char *scope = str_at(f, u64(f, s), "a scope name", m->err);
            if (!scope)
                return -1;
            unsigned type = u8(f, s + 8);
            if (type == 1 || (type == 0 && strcmp(scope, "point") == 0))
                h->point = (int)id;
            else if (type == 2 || (type == 0 && strcmp(scope, "execution") == 0))
                h->exec = (int)id;
        }
    }
    return 0;
}

static int read_table(meta *m, uint64_t sz, uint64_t p, range *r, uint64_t min, const char *what)
{
    const dbf *f = &m->f;
    if (section_head(f, sz, p, 14, what, m->err) < 0)
        return -1;
    r->base = u64(f, p);
    r->n = u32(f, p + 8);
    r->stride = u16(f, p + 12);
    return array_at(f, r->base, r->n, r->stride, min, what, m->err);
}

/* The element of a table that pointer q names, or -1 with the error set. */
static int64_t table_index(meta *m, const range *r, uint64_t q, const char *what)
{
    if (q < r->base || (q - r->base) % r->stride != 0 || (q - r->base) / r->stride >= r->n) {
        ari_error_set(m->err, BAD, "%s: pointer %llu is not one of the %s", m->f.name, (ull)q, what);
        return -1;
    }
    return (int64_t)((q - r->base) / r->stride);
}

/* The path string of a load module or source file pointer (0: NULL). */
static int path_of(meta *m, const range *r, uint64_t q, const char *what, const char **out)
{
    *out = NULL;
    if (q == 0)
        return 0;
    int64_t i = table_index(m, r, q, what);
    if (i < 0)
        return -1;
    *out = str_at(&m->f, u64(&m->f, r->base + (uint64_t)i * r->stride + 8), "a path", m->err);
    return *out ? 0 : -1;
}

static hctx *new_ctx(meta *m, uint32_t id, int32_t parent, int lexical)
{
    if (m->nctx == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        hctx *g = realloc(m->ctx, cap * sizeof *g);
        if (!g) {
            ari_error_set(m->err, ARI_E_NOMEM, "out of memory");
            return NULL;
        }
        m->ctx = g;
        m->cap = cap;
    }
    /* each context takes >= 32 bytes of the section: more means a loop */
    if (m->nctx >= (m->ctx_hi - m->ctx_lo) / 32 + 65536) {
        ari_error_set(m->err, BAD,
                      "%s: the context tree lists more contexts than its section holds (a cycle?)",
                      m->f.name);
        return NULL;
    }
    hctx *c = &m->ctx[m->nctx];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->parent = parent;
    c->lexical = lexical;
    c->region = -1;
    c->node = c->tnode = (int32_t)m->nctx;
    c->depth = 0;
    m->nctx++;
    return c;
}

/* Where a context stands in the profile and the trace (by its parent). */
static void place_ctx(meta *m, hctx *c)
{
    int32_t self = (int32_t)(c - m->ctx);
    if (c->parent < 0)
        return;
    const hctx *p = &m->ctx[c->parent];
    if (c->lexical == LEX_INSTRUCTION)
        c->node = p->node;
    if (c->lexical == LEX_LINE || c->lexical == LEX_INSTRUCTION) {
        c->tnode = p->tnode;
        c->depth = p->depth;
    } else {
        c->tnode = self;
        c->depth = m->ctx[p->tnode].depth + 1;
        if (c->depth > m->max_depth)
            m->max_depth = c->depth;
    }
}

/* The flex words of a context: function, source location, point. */
static int ctx_flex(meta *m, hctx *c, uint64_t q, unsigned flags, unsigned nflex)
{
    const dbf *f = &m->f;
    unsigned w = 0;
    uint64_t fn = 0, file = 0, module = 0;
    if (flags & 1) {
        if (w >= nflex)
            goto short_flex;
        fn = u64(f, q + 0x20 + 8 * w++);
    }
    if (flags & 2) {
        if (w + 2 > nflex)
            goto short_flex;
        file = u64(f, q + 0x20 + 8 * w++);
        c->line = u32(f, q + 0x20 + 8 * w++);
    }
    if (flags & 4) {
        if (w + 2 > nflex)
            goto short_flex;
        module = u64(f, q + 0x20 + 8 * w);
    }
    if (path_of(m, &m->files, file, "source files", &c->file) < 0 ||
        path_of(m, &m->mods, module, "load modules", &c->module) < 0)
        return -1;
    if (fn) {
        int64_t i = table_index(m, &m->fns, fn, "functions");
        if (i < 0)
            return -1;
        uint64_t s = m->fns.base + (uint64_t)i * m->fns.stride;
        const char *fmod = NULL, *ffile = NULL;
        uint64_t name = u64(f, s);
        if (name && !(c->func = str_at(f, name, "a function name", m->err)))
            return -1;
        if (path_of(m, &m->mods, u64(f, s + 8), "load modules", &fmod) < 0 ||
            path_of(m, &m->files, u64(f, s + 0x18), "source files", &ffile) < 0)
            return -1;
        if (fmod)
            c->module = fmod;
        if (!c->file && ffile) {
            c->file = ffile;
            c->line = u32(f, s + 0x20);
        }
    }
    return 0;
short_flex:
    return ari_error_set(m->err, BAD, "%s: context at byte %llu has flags %u but only %u flex words", f->name,
                         (ull)q, flags, nflex);
}

typedef struct frame {
    uint64_t at, end;
    int32_t parent;
} frame;

/* Checks that a children array lies inside the context tree section. */
static int children_span(meta *m, uint64_t p, uint64_t sz)
{
    if (sz == 0)
        return 0;
    if (p < m->ctx_lo || p > m->ctx_hi || sz > m->ctx_hi - p)
        return ari_error_set(m->err, BAD,
                             "%s: child contexts at byte %llu (%llu bytes) lie outside the context tree",
                             m->f.name, (ull)p, (ull)sz);
    return 0;
}

static int push(frame **st, size_t *n, size_t *cap, frame fr, ari_error *err)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        frame *g = realloc(*st, c * sizeof *g);
        if (!g)
            return ari_error_set(err, ARI_E_NOMEM, "out of memory");
        *st = g;
        *cap = c;
    }
    (*st)[(*n)++] = fr;
    return 0;
}

/* Walks the children arrays depth first (parents before children, siblings
 * in file order). */
static int walk_children(meta *m, frame *st, size_t nst, size_t cap)
{
    const dbf *f = &m->f;
    int rc = 0;
    while (nst > 0 && rc == 0) {
        frame *top = &st[nst - 1];
        if (top->at >= top->end) {
            nst--;
            continue;
        }
        uint64_t q = top->at;
        if (top->end - q < 0x20 || top->end - q < 0x20 + 8 * (uint64_t)u8(f, q + 0x17)) {
            rc = ari_error_set(m->err, BAD, "%s: context at byte %llu runs past its children array", f->name,
                               (ull)q);
            break;
        }
        unsigned nflex = u8(f, q + 0x17);
        top->at = q + 0x20 + 8 * (uint64_t)nflex;
        hctx *c = new_ctx(m, u32(f, q + 0x10), top->parent, u8(f, q + 0x16));
        if (!c || ctx_flex(m, c, q, u8(f, q + 0x14), nflex) < 0) {
            rc = -1;
            break;
        }
        if (c->lexical > LEX_INSTRUCTION) {
            rc = ari_error_set(m->err, BAD, "%s: context at byte %llu has unknown lexical type %d", f->name,
                               (ull)q, c->lexical);
            break;
        }
        place_ctx(m, c);
        uint64_t csz = u64(f, q), cp = u64(f, q + 8);
        frame fr = {cp, cp + csz, (int32_t)(c - m->ctx)};
        if (children_span(m, cp, csz) < 0 || (csz && push(&st, &nst, &cap, fr, m->err) < 0))
            rc = -1;
    }
    free(st);
    return rc;
}

static int read_contexts(meta *m, uint64_t sz, uint64_t p)
{
    const dbf *f = &m->f;
    if (section_head(f, sz, p, 0xb, "Context Tree", m->err) < 0)
        return -1;
    m->ctx_lo = p;
    m->ctx_hi = p + sz;
    uint64_t pe = u64(f, p), n = u16(f, p + 8), sze = u8(f, p + 10);
    if (array_at(f, pe, n, sze, 0x20, "entry points", m->err) < 0)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t q = pe + i * sze;
        hctx *c = new_ctx(m, u32(f, q + 0x10), -1, LEX_ENTRY);
        if (!c || !(c->func = str_at(f, u64(f, q + 0x18), "an entry point name", m->err)))
            return -1;
        uint64_t csz = u64(f, q), cp = u64(f, q + 8);
        if (children_span(m, cp, csz) < 0)
            return -1;
        frame *st = malloc(64 * sizeof *st);
        if (!st)
            return ari_error_set(m->err, ARI_E_NOMEM, "out of memory");
        st[0] = (frame){cp, cp + csz, (int32_t)(c - m->ctx)};
        if (walk_children(m, st, csz ? 1 : 0, 64) < 0)
            return -1;
    }
    return 0;
}

static int cmp_ids(const void *a, const void *b)
{
    const idmap *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The sorted context ids, for the lookups of profile.db and trace.db. */
static int index_ids(meta *m)
{
    m->ids = malloc((m->nctx ? m->nctx : 1) * sizeof *m->ids);
    if (!m->ids)
        return ari_error_set(m->err, ARI_E_NOMEM, "out of memory");
    for (size_t i = 0; i < m->nctx; i++)
        m->ids[i] = (idmap){m->ctx[i].id, (int32_t)i};
    qsort(m->ids, m->nctx, sizeof *m->ids, cmp_ids);
    for (size_t i = 0; i < m->nctx; i++) {
        if (m->ids[i].id == 0 || (i > 0 && m->ids[i].id == m->ids[i - 1].id))
            return ari_error_set(m->err, BAD, "%s: context id %u is %s", m->f.name, m->ids[i].id,
                                 m->ids[i].id ? "listed twice" : "reserved for the global context");
    }
    return 0;
}

/* The index of a context id, or -1. */
static int32_t ctx_of(const meta *m, uint32_t id)
{
    idmap key = {id, 0};
    const idmap *hit = bsearch(&key, m->ids, m->nctx, sizeof *m->ids, cmp_ids);
    return hit ? hit->index : -1;
}

static int meta_read(meta *m)
{
    uint64_t sz[8] = {0}, p[8] = {0};
    if (header(&m->f, "meta", 8, sz, p, m->err) < 0)
        return -1;
    /* the tables first: the context tree points into them */
    if (read_general(m, sz[0], p[0]) < 0 || read_id_names(m, sz[1], p[1]) < 0 ||
        read_metrics(m, sz[2], p[2]) < 0 || read_table(m, sz[5], p[5], &m->mods, 16, "load modules") < 0 ||
        read_table(m, sz[6], p[6], &m->files, 16, "source files") < 0 ||
        read_table(m, sz[7], p[7], &m->fns, 0x24, "functions") < 0)
        return -1;
    if (read_contexts(m, sz[3], p[3]) < 0)
        return -1;
    return index_ids(m);
}

/* A context's name: function, "Loop@file:line", "file:line", entry name. */
static void ctx_name(const hctx *c, char *out, size_t size)
{
    const char *file = c->file ? c->file : "<unknown file>";
    switch (c->lexical) {
    case LEX_LOOP:
        snprintf(out, size, "Loop@%s:%u", file, c->line);
        break;
    case LEX_LINE:
        snprintf(out, size, "%s:%u", file, c->line);
        break;
    case LEX_INSTRUCTION:
        snprintf(out, size, "<instruction> [%s]", c->module ? c->module : "<unknown module>");
        break;
    default:
        snprintf(out, size, "%s", c->func ? c->func : "<unknown function>");
    }
}

static const char *ctx_kind(const hctx *c)
{
    switch (c->lexical) {
    case LEX_LOOP:
        return "loop";
    case LEX_LINE:
        return "statement";
    case LEX_ENTRY:
        return "entry";
    default:
        return "function";
    }
}

/* ---- profile.db ---- */

typedef struct hprof {
    uint64_t block; /* offset of its sparse value block */
    int64_t rank, thread;
    uint64_t node;  /* its compute node's id (NODE), when has_node */
    int has_node, node_physical;
    int summary;
} hprof;

typedef struct profdb {
    dbf f;
    hprof *prof;
    size_t n;
} profdb;

/* rank and thread of an identifier tuple (0 when absent), and its compute
 * node (NODE) when it names one. */
static int read_tuple(const meta *m, const dbf *f, uint64_t q, hprof *h, ari_error *err)
{
    if (span(f, q, 8, "an identifier tuple", err) < 0)
        return -1;
    unsigned n = u16(f, q);
    if (span(f, q + 8, 16 * (uint64_t)n, "an identifier tuple", err) < 0)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        uint64_t e = q + 8 + 16 * (uint64_t)i;
        unsigned kind = u8(f, e);
        int64_t v = (u16(f, e + 2) & 1) ? (int64_t)(u64(f, e + 8) & INT64_MAX) : (int64_t)u32(f, e + 4);
        const char *name = kind < m->nkinds ? m->kinds[kind] : "";
        if (strcmp(name, "RANK") == 0)
            h->rank = v;
        else if (strcmp(name, "THREAD") == 0)
            h->thread = v;
        else if (strcmp(name, "NODE") == 0) {
            h->has_node = 1;
            h->node_physical = u16(f, e + 2) & 1;
            h->node = h->node_physical ? u64(f, e + 8) : u32(f, e + 4);
        }
    }
    return 0;
}

static int prof_read(const meta *m, profdb *pd, ari_error *err)
{
    const dbf *f = &pd->f;
    uint64_t sz[2] = {0}, p[2] = {0};
    if (header(f, "prof", 2, sz, p, err) < 0 || section_head(f, sz[0], p[0], 13, "Profile Info", err) < 0)
        return -1;
    uint64_t pp = u64(f, p[0]), n = u32(f, p[0] + 8), szp = u8(f, p[0] + 12);
    if (array_at(f, pp, n, szp, 0x2c, "profile infos", err) < 0)
        return -1;
    pd->prof = calloc(n ? n : 1, sizeof *pd->prof);
    if (!pd->prof)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    pd->n = n;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t q = pp + i * szp;
        hprof *h = &pd->prof[i];
        h->block = q;
        h->summary = (u32(f, q + 0x28) & 1) || i == 0;
        uint64_t t = u64(f, q + 0x20);
        if (t && read_tuple(m, f, t, h, err) < 0)
            return -1;
    }
    return 0;
}

/* Hands one profile's values to the sink: point values to the exclusive
 * metric of the context's node, execution values of node contexts to the
 * inclusive one. */
static int prof_values(const meta *m, const profdb *pd, const hprof *h, int proc, const int *prop_metric,
                       const ari_profile_sink *k, ari_error *err)
{
    const dbf *f = &pd->f;
    uint64_t nv = u64(f, h->block), pv = u64(f, h->block + 8);
    uint64_t nc = u32(f, h->block + 0x10), pc = u64(f, h->block + 0x18);
    if (array_at(f, pv, nv, 10, 10, "metric values", err) < 0 ||
        array_at(f, pc, nc, 12, 12, "context indices", err) < 0)
        return -1;
    for (uint64_t i = 0; i < nc; i++) {
        uint32_t id = u32(f, pc + 12 * i);
        uint64_t start = u64(f, pc + 12 * i + 4), end = i + 1 < nc ? u64(f, pc + 12 * (i + 1) + 4) : nv;
        if (start > end || end > nv)
            return ari_error_set(err, BAD,
                                 "%s: context index %llu at byte %llu gives values %llu..%llu of %llu",
                                 f->name, (ull)i, (ull)(pc + 12 * i), (ull)start, (ull)end, (ull)nv);
        int32_t c = id ? ctx_of(m, id) : -1;
        if (c < 0)
            continue; /* the global context, or one meta.db does not list */
        for (uint64_t j = start; j < end; j++) {
            unsigned mid = u16(f, pv + 10 * j);
            double v = f64(f, pv + 10 * j + 2);
            int pm = prop_metric[mid];
            if (pm < 0 || !isfinite(v))
                continue;
            int inclusive = pm & 1;
            if (inclusive && m->ctx[c].node != c)
                continue; /* already inside its parent's inclusive value */
            if (k->on_value(k->ctx, pm >> 1, m->ctx[c].node, proc, v) != 0)
                return err && err->code[0] ? -1 : ari_error_set(err, BAD, "%s: value refused", f->name);
        }
    }
    return 0;
}

/* Declares metrics: prop_metric[id] = sink index * 2 + inclusive. */
static int declare_metrics(const meta *m, const ari_profile_sink *k, int *prop_metric, ari_error *err)
{
    for (size_t i = 0; i < NPROP; i++)
        prop_metric[i] = -1;
    int time_done = 0;
    for (size_t i = 0; i < m->nmetrics; i++) {
        const hmetric *h = &m->metrics[i];
        int is_time = strncmp(h->name, "CPUTIME", 7) == 0;
        const char *unit = strstr(h->name, "(usec)") ? "usec" : strstr(h->name, "(sec)") ? "s" : "";
        char ex[300], inc[310];
        if (is_time)
            snprintf(ex, sizeof ex, "time");
        else if (h->name[0])
            snprintf(ex, sizeof ex, "%s", h->name);
        else
            snprintf(ex, sizeof ex, "metric %zu", i); /* an unnamed metric */
        snprintf(inc, sizeof inc, "%s (inc)", ex);
        /* hpcprof attributes point values to leaf contexts that meta.db
         * leaves out: the exclusive variant is derived from the inclusive
         * one by the writer, point values serve only when there is none */
        for (int inclusive = 0; inclusive < 2; inclusive++) {
            int id = inclusive ? h->exec : h->exec < 0 ? h->point : -1;
            if (id < 0)
                continue;
            ari_profile_metric pm = {inclusive ? inc : ex, h->name, unit, inclusive, NULL};
            int index;
            if (k->on_metric(k->ctx, &pm, &index) != 0)
                return err && err->code[0] ? -1 : ari_error_set(err, BAD, "%s: metric refused", m->f.name);
            prop_metric[id] = index * 2 + inclusive;
        }
        if (is_time && !time_done && k->on_time_unit) {
            time_done = 1;
            char source[400];
            snprintf(source, sizeof source, "%s (HPCToolkit meta.db: metric name %.300s)",
                     unit[0] ? "declared in the file" : "not declared in the file", h->name);
            if (k->on_time_unit(k->ctx, unit, source) != 0)
                return err && err->code[0] ? -1 : ari_error_set(err, BAD, "%s: time unit refused", m->f.name);
        }
    }
    return 0;
}

static int declare_nodes(const meta *m, const ari_profile_sink *k, ari_error *err)
{
    char name[1024];
    for (size_t i = 0; i < m->nctx; i++) {
        const hctx *c = &m->ctx[i];
        if (c->node != (int32_t)i)
            continue;
        ctx_name(c, name, sizeof name);
        ari_profile_node n = {(int64_t)i, c->parent < 0 ? -1 : m->ctx[c->parent].node, name,       c->module,
                              c->file,    (int)(c->line > INT32_MAX ? 0 : c->line),    ctx_kind(c)};
        if (k->on_node(k->ctx, &n) != 0)
            return err && err->code[0] ? -1 : ari_error_set(err, BAD, "%s: node refused", m->f.name);
    }
    return 0;
}

static int emit_meta(const meta *m, const profdb *pd, const ari_profile_sink *k)
{
    if (!k->on_meta)
        return 0;
    char v[64];
    snprintf(v, sizeof v, "%zu", m->nctx);
    if (k->on_meta(k->ctx, "hpctoolkit_contexts", v) != 0)
        return -1;
    snprintf(v, sizeof v, "\"%u.%u\"", m->f.p[14], m->f.p[15]);
    if (k->on_meta(k->ctx, "hpctoolkit_db_version", v) != 0)
        return -1;
    snprintf(v, sizeof v, "%zu", pd->n);
    return k->on_meta(k->ctx, "hpctoolkit_profiles", v);
}

static int profile_emit(const meta *m, const profdb *pd, const ari_profile_sink *k, ari_error *err)
{
    int *prop_metric = malloc(NPROP * sizeof *prop_metric);
    if (!prop_metric)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    int rc = declare_metrics(m, k, prop_metric, err);
    if (rc == 0)
        rc = declare_nodes(m, k, err);
    if (rc == 0 && emit_meta(m, pd, k) != 0)
        rc = err && err->code[0] ? -1 : ari_error_set(err, BAD, "%s: metadata refused", m->f.name);
    for (size_t i = 0; i < pd->n && rc == 0; i++) {
        const hprof *h = &pd->prof[i];
        if (h->summary)
            continue;
        int proc;
        if (k->on_proc(k->ctx, h->rank, h->thread, &proc) != 0)
            rc = err && err->code[0] ? -1 : ari_error_set(err, BAD, "%s: process refused", pd->f.name);
        else
            rc = prof_values(m, pd, h, proc, prop_metric, k, err);
        if (k->on_progress)
            k->on_progress(k->ctx, (double)(i + 1) / (double)pd->n);
    }
    free(prop_metric);
    return rc;
}

/* ---- trace.db ---- */

/* A compute node given to the sink as a system-tree node. */
typedef struct tnode_id {
    uint64_t id;
    int physical;
    int64_t handle;
} tnode_id;

typedef struct tracer {
    meta *m;
    const ari_event_sink *k;
    ari_error *err;
    int32_t *path;
    tnode_id *nodes; /* at most one per profile */
    size_t nnodes;
} tracer;

static int refused(tracer *t, const char *what)
{
    return t->err && t->err->code[0] ? -1 : ari_error_set(t->err, BAD, "trace.db: %s refused", what);
}

static int64_t region_of(tracer *t, int32_t i)
{
    hctx *c = &t->m->ctx[i];
    if (c->region >= 0)
        return c->region;
    char name[1024];
    ctx_name(c, name, sizeof name);
    const char *role = c->lexical == LEX_LOOP ? "loop" : c->lexical == LEX_ENTRY ? "entry" : "function";
    c->region = t->k->region(t->k->ctx, name, c->file, (int)(c->line > INT32_MAX ? 0 : c->line), role);
    return c->region;
}

/* Leaves from `last` up to (not including) `common`, enters from below
 * `common` down to `cur`, at time `time`. -1 stands for "nothing". */
static int step(tracer *t, int64_t loc, double time, int32_t last, int32_t cur)
{
    const hctx *ctx = t->m->ctx;
    int32_t a = last, b = cur;
    while (a >= 0 && b >= 0 && ctx[a].depth > ctx[b].depth)
        a = ctx[ctx[a].parent].tnode;
    while (a >= 0 && b >= 0 && ctx[b].depth > ctx[a].depth)
        b = ctx[ctx[b].parent].tnode;
    while (a >= 0 && b >= 0 && a != b) {
        a = ctx[a].parent < 0 ? -1 : ctx[ctx[a].parent].tnode;
        b = ctx[b].parent < 0 ? -1 : ctx[ctx[b].parent].tnode;
    }
    int32_t common = (a >= 0 && a == b) ? a : -1;
    for (int32_t x = last; x >= 0 && x != common; x = ctx[x].parent < 0 ? -1 : ctx[ctx[x].parent].tnode) {
        int64_t r = region_of(t, x);
        if (r < 0 || t->k->leave(t->k->ctx, loc, time, r) != 0)
            return refused(t, "a Leave");
    }
    size_t n = 0;
    for (int32_t x = cur; x >= 0 && x != common; x = ctx[x].parent < 0 ? -1 : ctx[ctx[x].parent].tnode)
        t->path[n++] = x;
    while (n > 0) {
        int64_t r = region_of(t, t->path[--n]);
        if (r < 0 || t->k->enter(t->k->ctx, loc, time, r) != 0)
            return refused(t, "an Enter");
    }
    return 0;
}

/* Places the rank of profile h under its compute node ("node <hostid>"),
 * made on first use, when the sink keeps a system tree and the tuple names
 * a node. */
static int place_rank(tracer *t, const hprof *h)
{
    if (!h->has_node || !t->k->system_node || !t->k->process_node)
        return 0;
    size_t i = 0;
    while (i < t->nnodes && (t->nodes[i].id != h->node || t->nodes[i].physical != h->node_physical))
        i++;
    if (i == t->nnodes) {
        char name[48];
        snprintf(name, sizeof name, h->node_physical ? "node %llx" : "node %llu", (ull)h->node);
        int64_t n = t->k->system_node(t->k->ctx, -1, "node", name);
        if (n < 0)
            return refused(t, "a node");
        t->nodes[t->nnodes++] = (tnode_id){h->node, h->node_physical, n};
    }
    return t->k->process_node(t->k->ctx, h->rank, t->nodes[i].handle) < 0 ? refused(t, "a node") : 0;
}

static int trace_line(tracer *t, const dbf *f, const profdb *pd, uint64_t q, uint64_t tmin, uint64_t tmax)
{
    uint32_t pi = u32(f, q);
    uint64_t start = u64(f, q + 8), end = u64(f, q + 0x10);
    if (pi >= pd->n)
        return ari_error_set(t->err, BAD, "%s: trace header at byte %llu names profile %u of %zu", f->name,
                             (ull)q, pi, pd->n);
    if (end < start || (end - start) % 12 != 0)
        return ari_error_set(t->err, BAD,
                             "%s: trace header at byte %llu has a line of %llu..%llu, not of 12-byte samples",
                             f->name, (ull)q, (ull)start, (ull)end);
    if (span(f, start, end - start, "a trace line", t->err) < 0)
        return -1;
    const hprof *h = &pd->prof[pi];
    if (place_rank(t, h) < 0)
        return -1;
    int64_t proc = t->k->process(t->k->ctx, h->rank, NULL);
    int64_t loc = proc < 0 ? -1 : t->k->location(t->k->ctx, proc, h->thread, NULL);
    if (loc < 0)
        return refused(t, "a location");
    int32_t last = -1;
    uint32_t last_id = UINT32_MAX;
    uint64_t prev = tmin;
    for (uint64_t e = start; e < end; e += 12) {
        uint64_t ts = u64(f, e);
        uint32_t id = u32(f, e + 8);
        if (ts < prev)
            return ari_error_set(t->err, BAD, "%s: sample at byte %llu goes back in time (%llu after %llu)",
                                 f->name, (ull)e, (ull)ts, (ull)prev);
        prev = ts;
        if (id == last_id)
            continue;
        int32_t c = id ? ctx_of(t->m, id) : -1;
        if (id && c < 0)
            return ari_error_set(t->err, BAD, "%s: sample at byte %llu names context %u, not in meta.db",
                                 f->name, (ull)e, id);
        int32_t cur = c < 0 ? -1 : t->m->ctx[c].tnode;
        if (step(t, loc, (double)(ts - tmin), last, cur) < 0)
            return -1;
        last = cur;
        last_id = id;
    }
    return step(t, loc, (double)((tmax > prev ? tmax : prev) - tmin), last, -1);
}

static int trace_emit(meta *m, const profdb *pd, const dbf *f, const ari_event_sink *k, ari_error *err)
{
    uint64_t sz[1] = {0}, p[1] = {0};
    if (header(f, "trce", 1, sz, p, err) < 0 ||
        section_head(f, sz[0], p[0], 0x20, "Context Trace Headers", err) < 0)
        return -1;
    uint64_t pt = u64(f, p[0]), n = u32(f, p[0] + 8), szt = u8(f, p[0] + 12);
    uint64_t tmin = u64(f, p[0] + 0x10), tmax = u64(f, p[0] + 0x18);
    if (array_at(f, pt, n, szt, 0x18, "trace headers", err) < 0)
        return -1;
    if (k->note) { /* the origin of the times, ns since the epoch */
        char v[32];
        snprintf(v, sizeof v, "%llu", (ull)tmin);
        if (k->note(k->ctx, "hpctoolkit_min_timestamp_ns", v) != 0)
            return err && err->code[0] ? -1 : ari_error_set(err, BAD, "trace.db: note refused");
    }
    tracer t = {m, k, err, malloc(((size_t)m->max_depth + 2) * sizeof(int32_t)),
                calloc(pd->n ? pd->n : 1, sizeof(tnode_id)), 0};
    if (!t.path || !t.nodes) {
        free(t.path), free(t.nodes);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    int rc = 0;
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        rc = trace_line(&t, f, pd, pt + i * szt, tmin, tmax);
        if (k->progress)
            k->progress(k->ctx, (double)(i + 1) / (double)n);
    }
    free(t.path);
    free(t.nodes);
    return rc;
}

/* ---- entry points ---- */

int ari_hpctoolkit_db_probe(const char *head, size_t n)
{
    return n >= 14 && memcmp(head, "HPCTOOLKITmeta", 14) == 0;
}

int ari_hpctoolkit_db_read_mem(const unsigned char *meta_b, size_t meta_n, const unsigned char *prof_b,
                               size_t prof_n, const unsigned char *trace_b, size_t trace_n,
                               const ari_profile_sink *k, const ari_event_sink *ek, ari_error *err)
{
    meta m;
    memset(&m, 0, sizeof m);
    m.f = (dbf){meta_b, meta_n, "meta.db"};
    m.err = err;
    profdb pd = {{prof_b, prof_n, "profile.db"}, NULL, 0};
    int rc = meta_read(&m);
    if (rc == 0)
        rc = prof_read(&m, &pd, err);
    if (rc == 0 && k)
        rc = profile_emit(&m, &pd, k, err);
    if (rc == 0 && ek) {
        dbf tf = {trace_b, trace_n, "trace.db"};
        rc = trace_emit(&m, &pd, &tf, ek, err);
    }
    free(pd.prof);
    meta_free(&m);
    return rc ? -1 : 0;
}

typedef struct mapped {
    void *p;
    size_t n;
} mapped;

static int map_file(const char *path, const char *name, mapped *mf, ari_error *err)
{
    mf->p = NULL;
    mf->n = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return ari_error_set(err, ARI_E_IO, "%s: cannot open", name);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ari_error_set(err, ARI_E_IO, "%s: not a regular file", name);
    }
    mf->n = (size_t)st.st_size;
    if (mf->n > 0) {
        mf->p = mmap(NULL, mf->n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mf->p == MAP_FAILED) {
            mf->p = NULL;
            close(fd);
            return ari_error_set(err, ARI_E_IO, "%s: cannot map it", name);
        }
    }
    close(fd);
    return 0;
}

static void unmap_file(mapped *mf)
{
    if (mf->p)
        munmap(mf->p, mf->n);
}

/* The mem reader names its files meta.db, profile.db, trace.db: put the
 * caller's name for the file in front of a message about it. */
static int read_files(const char *const paths[3], const char *const names[3], const ari_profile_sink *k,
                      const ari_event_sink *ek, ari_error *err)
{
    mapped mf[3] = {{0}};
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        if (paths[i])
            rc = map_file(paths[i], names[i], &mf[i], err);
    if (rc == 0) {
        ari_error e = {0};
        rc = ari_hpctoolkit_db_read_mem(mf[0].p, mf[0].n, mf[1].p, mf[1].n, mf[2].p, mf[2].n, k, ek, &e);
        if (rc != 0 && err) {
            static const char *const base[3] = {"meta.db:", "profile.db:", "trace.db:"};
            int which = -1;
            for (int i = 0; i < 3; i++)
                if (strncmp(e.message, base[i], strlen(base[i])) == 0)
                    which = i;
            if (which >= 0 && strcmp(names[which], base[which]) != 0)
                ari_error_set(err, e.code, "%s%s", names[which], e.message + strlen(base[which]) - 1);
            else
                *err = e;
        }
    }
    for (int i = 0; i < 3; i++)
        unmap_file(&mf[i]);
    return rc ? -1 : 0;
}

int ari_hpctoolkit_db_read(const char *meta_path, const char *meta_name, const char *profile_path,
                           const char *profile_name, const ari_profile_sink *k, ari_error *err)
{
    const char *paths[3] = {meta_path, profile_path, NULL};
    const char *names[3] = {meta_name, profile_name, "trace.db"};
    return read_files(paths, names, k, NULL, err);
}

int ari_hpctoolkit_db_trace(const char *dir, const ari_event_sink *k, ari_error *err)
{
    char p[3][4096], n[3][4096];
    static const char *const files[3] = {"meta.db", "profile.db", "trace.db"};
    for (int i = 0; i < 3; i++) {
        snprintf(p[i], sizeof p[i], "%s/%s", dir, files[i]);
        snprintf(n[i], sizeof n[i], "%s/%s", dir, files[i]);
    }
    const char *paths[3] = {p[0], p[1], p[2]};
    const char *names[3] = {n[0], n[1], n[2]};
    return read_files(paths, names, NULL, k, err);
}
