/* paje.c: the Paje trace reader.
 *
 * Layout of this file: event kinds and field names; the structures of the
 * model (types, values, containers with their state stacks and variables,
 * pending links); helpers (errors, tokenizer, numbers, sink calls); the
 * %EventDef header; one function per Paje event; then the two passes: a
 * scan that reads the header, checks every body line and decides whether
 * the body is time-ordered (indexing (time, offset) once it is not), and a
 * replay, streamed in file order or, through a map of the plain file or of
 * a decompressed copy, in the sorted order of the index.
 * The semantics follow pajeng 1.3.6 (pj_dump), checked against its output:
 * SetState empties the stack, PushState nests (depth = stack size), a
 * variable change at the time its current piece started replaces the value
 * instead of making an empty piece, and destroying a container closes its
 * sub-containers at the same time.
 */
#include "ingest/paje.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/input.h"
#include "util/free_all.h"
#include "util/strmap.h"
#include "util/vec.h"

/* ---- event kinds and fields --------------------------------------------- */

enum field {
    F_TIME, F_NAME, F_ALIAS, F_TYPE, F_CONTAINER, F_START_CONTAINER_TYPE, F_END_CONTAINER_TYPE,
    F_START_CONTAINER, F_END_CONTAINER, F_VALUE, F_KEY, F_COLOR, F_FILE, F_LINE, F_FILENAME,
    F_COUNT
};

static const char *const field_names[F_COUNT] = {
    "Time", "Name", "Alias", "Type", "Container", "StartContainerType", "EndContainerType",
    "StartContainer", "EndContainer", "Value", "Key", "Color", "File", "Line", "Filename"};

/* Names of the original Paje format, accepted only when not strict. */
static const struct {
    const char *name;
    int field;
} old_field_names[] = {
    {"ContainerType", F_TYPE},
    {"EntityType", F_TYPE},
    {"SourceContainerType", F_START_CONTAINER_TYPE},
    {"DestContainerType", F_END_CONTAINER_TYPE},
    {"SourceContainer", F_START_CONTAINER},
    {"DestContainer", F_END_CONTAINER},
};

enum kind {
    K_DEF_CONTAINER_TYPE, K_DEF_STATE_TYPE, K_DEF_EVENT_TYPE, K_DEF_VARIABLE_TYPE,
    K_DEF_LINK_TYPE, K_DEF_ENTITY_VALUE, K_CREATE_CONTAINER, K_DESTROY_CONTAINER,
    K_SET_STATE, K_PUSH_STATE, K_POP_STATE, K_RESET_STATE, K_SET_VARIABLE, K_ADD_VARIABLE,
    K_SUB_VARIABLE, K_START_LINK, K_END_LINK, K_NEW_EVENT, K_TRACE_FILE, K_COUNT
};

#define BIT(f) (1u << (f))
#define ENTITY (BIT(F_TIME) | BIT(F_TYPE) | BIT(F_CONTAINER))
#define SOURCE (BIT(F_FILE) | BIT(F_LINE))

/* Obligatory and optional fields of each event (PajeDefinitions.cc). */
static const struct kind_info {
    const char *name;
    unsigned required;
    unsigned optional;
} kinds[K_COUNT] = {
    [K_DEF_CONTAINER_TYPE] = {"PajeDefineContainerType", BIT(F_NAME) | BIT(F_TYPE), BIT(F_ALIAS)},
    [K_DEF_STATE_TYPE] = {"PajeDefineStateType", BIT(F_NAME) | BIT(F_TYPE), BIT(F_ALIAS)},
    [K_DEF_EVENT_TYPE] = {"PajeDefineEventType", BIT(F_NAME) | BIT(F_TYPE),
                          BIT(F_ALIAS) | BIT(F_COLOR)},
    [K_DEF_VARIABLE_TYPE] = {"PajeDefineVariableType", BIT(F_NAME) | BIT(F_TYPE),
                             BIT(F_ALIAS) | BIT(F_COLOR)},
    [K_DEF_LINK_TYPE] = {"PajeDefineLinkType",
                         BIT(F_NAME) | BIT(F_TYPE) | BIT(F_START_CONTAINER_TYPE) |
                             BIT(F_END_CONTAINER_TYPE),
                         BIT(F_ALIAS)},
    [K_DEF_ENTITY_VALUE] = {"PajeDefineEntityValue", BIT(F_NAME) | BIT(F_TYPE),
                            BIT(F_ALIAS) | BIT(F_COLOR)},
    [K_CREATE_CONTAINER] = {"PajeCreateContainer",
                            BIT(F_TIME) | BIT(F_NAME) | BIT(F_TYPE) | BIT(F_CONTAINER),
                            BIT(F_ALIAS)},
    [K_DESTROY_CONTAINER] = {"PajeDestroyContainer", BIT(F_TIME) | BIT(F_NAME) | BIT(F_TYPE), 0},
    [K_SET_STATE] = {"PajeSetState", ENTITY | BIT(F_VALUE), SOURCE},
    [K_PUSH_STATE] = {"PajePushState", ENTITY | BIT(F_VALUE), SOURCE},
    [K_POP_STATE] = {"PajePopState", ENTITY, SOURCE},
    [K_RESET_STATE] = {"PajeResetState", ENTITY, SOURCE},
    [K_SET_VARIABLE] = {"PajeSetVariable", ENTITY | BIT(F_VALUE), SOURCE},
    [K_ADD_VARIABLE] = {"PajeAddVariable", ENTITY | BIT(F_VALUE), SOURCE},
    [K_SUB_VARIABLE] = {"PajeSubVariable", ENTITY | BIT(F_VALUE), SOURCE},
    [K_START_LINK] = {"PajeStartLink",
                      ENTITY | BIT(F_VALUE) | BIT(F_START_CONTAINER) | BIT(F_KEY), SOURCE},
    [K_END_LINK] = {"PajeEndLink", ENTITY | BIT(F_VALUE) | BIT(F_END_CONTAINER) | BIT(F_KEY), 0},
    [K_NEW_EVENT] = {"PajeNewEvent", ENTITY | BIT(F_VALUE), SOURCE},
    [K_TRACE_FILE] = {"PajeTraceFile", BIT(F_CONTAINER) | BIT(F_TYPE) | BIT(F_FILENAME), 0},
};

static const char *const field_types[] = {"string", "date", "double", "float",
                                          "int",    "hex",  "color"};

#define MAX_FIELDS 1000
#define SMALL_IDS 256

typedef struct evdef {
    int kind;
    int nfields;
    char **fnames;      /* field names as written */
    int idx[F_COUNT];   /* position of each known field among the fields, or -1 */
    int *user;          /* positions of the user-defined fields */
    int nuser;
} evdef;

/* ---- model structures ---------------------------------------------------- */

typedef struct ptype {
    int nature;              /* ARI_NATURE_* */
    char *id;                /* alias, or name */
    char *name;
    struct ptype *parent;    /* enclosing container type; NULL: the root type "0" */
    struct ptype *start;     /* link types: container types of the two ends */
    struct ptype *end;
    ari_strmap *values;      /* value alias or name -> value name (char *) */
} ptype;

typedef struct sentry {      /* one open state on a stack */
    double start;
    const char *value;
    int nfields;
    int fcap;
    ari_field *fields;
    char *buf;
    size_t bcap;
} sentry;

typedef struct cslot {       /* what one container holds for one type */
    ptype *type;
    sentry *stack;
    int depth;               /* states open */
    int cap;                 /* entries allocated (kept for reuse) */
    int has_value;           /* variables */
    double var_start;
    double var_value;
} cslot;

typedef struct pcont {
    char *id;                /* alias, or name; "0" for the root */
    char *name;
    ptype *type;             /* NULL for the root */
    struct pcont *parent;
    struct pcont *first_child, *last_child, *prev, *next; /* live children only */
    double start;
    int destroyed;
    cslot *slots;
    int nslots, capslots;
} pcont;

typedef struct plink {       /* a link with one end known */
    int has_start;           /* else it has its end */
    double time;
    const char *value;
    pcont *container;
    ptype *type;
    pcont *other;            /* the container of the known end */
    uint64_t offset;         /* where that end is in the trace */
    uint64_t lineno;
    int nfields, fcap;
    ari_field *fields;
    char *buf;
    size_t bcap;
    struct plink *next_free;
} plink;

typedef struct entry {       /* index of the body, for unordered traces */
    double key;
    uint64_t off;
} entry;

typedef struct reader {
    const char *name;
    ari_paje_options opt;
    const ari_sink *sink;
    ari_error *err;
    int sink_rc;

    /* event definitions */
    evdef *small_ids[SMALL_IDS];
    ari_strmap *ids;
    evdef **defs;
    size_t ndefs, capdefs;
    evdef *cur;              /* the %EventDef being read */
    char *cur_id;
    uint64_t cur_line;
    int max_fields;

    /* model */
    ari_strmap *types;       /* alias or name -> ptype */
    ptype **typelist;
    size_t ntypes, captypes;
    char **valnames;         /* every value name allocated, for freeing */
    size_t nvalnames, capvalnames;
    ari_strmap *conts;       /* alias or name -> pcont */
    pcont **contlist;
    size_t nconts, capconts;
    pcont root;
    ari_strmap *links;       /* (container, type, key) -> plink */
    plink *free_links;
    plink **linklist;
    size_t nlinks, caplinks;
    double last_time;        /* time of the last timed event: the trace end */

    /* position, for messages */
    uint64_t lineno;         /* 0: count it from offset in the map */
    uint64_t offset;
    const char *map;
    size_t mapsize;

    /* scratch */
    char **tok;
    int tokcap;
    ari_field *fields;
    int fieldcap;
    char *linebuf;
    size_t linecap;
    char *keybuf;
    size_t keycap;

    /* progress */
    double total;
    uint64_t nprocessed;

    /* a last line without a newline (see paje.h): the offset of a cut one
     * that the replay skips, and of one that was kept (a failure there is
     * reported, not an error); UINT64_MAX if none */
    uint64_t skip_off, tail_off, tail_line;
} reader;

/* ---- helpers: errors, tokens, numbers, sink calls ------------------------ */

/* The line number at offset: counted in the map only when needed (an error
 * in the sorted replay), so the replay itself does not track it. */
static uint64_t lineno_at(const reader *r, uint64_t lineno, uint64_t offset)
{
    if (lineno || !r->map)
        return lineno;
    uint64_t n = 1;
    const char *p = r->map, *end = r->map + offset;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

static uint64_t current_lineno(const reader *r)
{
    return lineno_at(r, r->lineno, r->offset);
}

static int perr(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(reader *r, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s:%llu: %s", r->name,
                  (unsigned long long)current_lineno(r), msg);
    return -1;
}

static int nomem(reader *r)
{
    ari_error_set(r->err, ARI_E_NOMEM, "%s: out of memory", r->name);
    return -1;
}

/* Grows *p (an array of *cap elements of size sz) to hold at least n. */
static int reserve(void **p, size_t *cap, size_t n, size_t sz)
{
    return ari_vec_reserve(p, cap, n, sz);
}

static int reserve_int(void **p, int *cap, int n, size_t sz)
{
    size_t c = (size_t)*cap;
    if (reserve(p, &c, (size_t)n, sz) != 0)
        return -1;
    *cap = (int)c;
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits s in place into whitespace-separated fields, a double-quoted field
 * being one field without its quotes. Stores at most max pointers in tok;
 * returns the number of fields, or -1 for an unterminated quote. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (is_space(*s))
            s++;
        if (!*s)
            return n;
        char *start;
        if (*s == '"') {
            start = ++s;
            char *q = strchr(s, '"');
            if (!q)
                return -1;
            *q = '\0';
            s = q + 1;
        } else {
            start = s;
            while (*s && !is_space(*s))
                s++;
            if (*s)
                *s++ = '\0';
        }
        if (n < max)
            tok[n] = start;
        n++;
    }
}

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses a finite number. Plain decimals with at most 15 significant digits
 * take an exact fast path (mantissa and power of ten are exact doubles, so
 * one division rounds correctly); anything else goes through strtod. */
static int parse_number(const char *s, double *out)
{
    const char *p = s;
    int neg = (*p == '-');
    if (*p == '-' || *p == '+')
        p++;
    uint64_t m = 0;
    int digits = 0, frac = 0;
    while (*p >= '0' && *p <= '9' && digits < 16) {
        m = m * 10 + (uint64_t)(*p++ - '0');
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && digits < 16) {
            m = m * 10 + (uint64_t)(*p++ - '0');
            digits++;
            frac++;
        }
    }
    if (*p == '\0' && digits > 0 && m < (1ULL << 53)) {
        double v = (double)m / pow10_exact[frac];
        *out = neg ? -v : v;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Is s a decimal integer below SMALL_IDS written without leading zeros? */
static int small_id(const char *s)
{
    if (s[0] < '0' || s[0] > '9')
        return -1;
    int v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || (p == s && *p == '0' && p[1]) || p - s > 3)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v < SMALL_IDS ? v : -1;
}

static evdef *find_def(reader *r, const char *id)
{
    int k = small_id(id);
    if (k >= 0)
        return r->small_ids[k];
    return ari_strmap_get(r->ids, id, strlen(id));
}

/* Sink calls: a non-zero return aborts the read. */
/* What a sink callback answered: 0 goes on; anything else stops the read
 * (kept in sink_rc, reported as cancelled unless an error is set). */
static int sink_answer(reader *r, int rc)
{
    if (rc == 0)
        return 0;
    r->sink_rc = rc;
    if (r->err && !r->err->code[0])
        ari_error_set(r->err, ARI_E_CANCELLED, "%s: stopped by the consumer", r->name);
    return -1;
}

static int emit_type(reader *r, const ari_type_def *t)
{
    return sink_answer(r, r->sink->on_type ? r->sink->on_type(r->sink->ctx, t) : 0);
}

/* Copies the user-defined fields of a line into fields/buf (reused). */
static int copy_fields(const evdef *ev, char **tok, ari_field **fields, int *fcap, char **buf,
                       size_t *bcap, int *nfields)
{
    size_t total = 0;
    for (int i = 0; i < ev->nuser; i++)
        total += strlen(tok[1 + ev->user[i]]) + 1;
    if (reserve((void **)buf, bcap, total ? total : 1, 1) != 0 ||
        reserve_int((void **)fields, fcap, ev->nuser ? ev->nuser : 1, sizeof **fields) != 0)
        return -1;
    char *p = *buf;
    for (int i = 0; i < ev->nuser; i++) {
        const char *v = tok[1 + ev->user[i]];
        size_t n = strlen(v) + 1;
        memcpy(p, v, n);
        (*fields)[i].name = ev->fnames[ev->user[i]];
        (*fields)[i].value = p;
        p += n;
    }
    *nfields = ev->nuser;
    return 0;
}

/* The user-defined fields of the current line, in r->fields. */
static int line_fields(reader *r, const evdef *ev, char **tok)
{
    if (reserve_int((void **)&r->fields, &r->fieldcap, ev->nuser ? ev->nuser : 1,
                    sizeof *r->fields) != 0)
        return nomem(r);
    for (int i = 0; i < ev->nuser; i++) {
        r->fields[i].name = ev->fnames[ev->user[i]];
        r->fields[i].value = tok[1 + ev->user[i]];
    }
    return 0;
}

/* ---- the %EventDef header ------------------------------------------------ */

static int field_index(const reader *r, const char *name)
{
    for (int f = 0; f < F_COUNT; f++)
        if (strcmp(name, field_names[f]) == 0)
            return f;
    if (r->opt.no_strict)
        for (size_t i = 0; i < sizeof old_field_names / sizeof old_field_names[0]; i++)
            if (strcmp(name, old_field_names[i].name) == 0)
                return old_field_names[i].field;
    return -1;
}

static void free_def(evdef *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nfields; i++)
        free(d->fnames[i]);
    void *owned[] = {d->fnames, d->user, d};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int begin_def(reader *r, char **tok, int n)
{
    if (r->cur)
        return perr(r, "%%EventDef inside the definition of event %s", r->cur_id);
    if (n != 3)
        return perr(r, "malformed %%EventDef: expected '%%EventDef <name> <id>'");
    int kind = -1;
    for (int k = 0; k < K_COUNT; k++)
        if (strcmp(tok[1], kinds[k].name) == 0)
            kind = k;
    if (kind < 0)
        return perr(r, "unknown event '%s' in %%EventDef", tok[1]);
    if (find_def(r, tok[2]))
        return perr(r, "event id %s is defined twice", tok[2]);
    r->cur = calloc(1, sizeof *r->cur);
    r->cur_id = strdup(tok[2]);
    if (!r->cur || !r->cur_id)
        return nomem(r);
    r->cur->kind = kind;
    r->cur_line = r->lineno;
    return 0;
}

static int add_def_field(reader *r, char **tok, int n)
{
    if (!r->cur)
        return perr(r, "field definition outside %%EventDef");
    if (n != 2)
        return perr(r, "malformed field definition: expected '%% <name> <type>'");
    int known = 0;
    for (size_t i = 0; i < sizeof field_types / sizeof field_types[0]; i++)
        known |= strcmp(tok[1], field_types[i]) == 0;
    if (!known)
        return perr(r, "unknown field type '%s' for field %s", tok[1], tok[0]);
    evdef *d = r->cur;
    for (int i = 0; i < d->nfields; i++)
        if (strcmp(d->fnames[i], tok[0]) == 0)
            return perr(r, "field %s appears twice in event %s", tok[0], r->cur_id);
    if (d->nfields >= MAX_FIELDS)
        return perr(r, "too many fields in event %s", r->cur_id);
    char **names = realloc(d->fnames, (size_t)(d->nfields + 1) * sizeof *names);
    if (!names)
        return nomem(r);
    d->fnames = names;
    if (!(d->fnames[d->nfields] = strdup(tok[0])))
        return nomem(r);
    d->nfields++;
    return 0;
}

static int register_def(reader *r, evdef *d, const char *id)
{
    int k = small_id(id);
    if (k >= 0) {
        r->small_ids[k] = d;
    } else {
        if (!r->ids && !(r->ids = ari_strmap_new()))
            return nomem(r);
        if (!ari_strmap_put(r->ids, id, strlen(id), d))
            return nomem(r);
    }
    if (reserve((void **)&r->defs, &r->capdefs, r->ndefs + 1, sizeof *r->defs) != 0)
        return nomem(r);
    r->defs[r->ndefs++] = d;
    if (d->nfields + 2 > r->max_fields) {
        r->max_fields = d->nfields + 2;
        char **tok = realloc(r->tok, (size_t)r->max_fields * sizeof *tok);
        if (!tok)
            return nomem(r);
        r->tok = tok;
        r->tokcap = r->max_fields;
    }
    return 0;
}

static int end_def(reader *r)
{
    evdef *d = r->cur;
    if (!d)
        return perr(r, "%%EndEventDef without %%EventDef");
    const struct kind_info *ki = &kinds[d->kind];
    for (int f = 0; f < F_COUNT; f++)
        d->idx[f] = -1;
    d->user = malloc((size_t)(d->nfields ? d->nfields : 1) * sizeof *d->user);
    if (!d->user)
        return nomem(r);
    for (int i = 0; i < d->nfields; i++) {
        int f = field_index(r, d->fnames[i]);
        if (f >= 0 && ((ki->required | ki->optional) & BIT(f))) {
            if (d->idx[f] >= 0)
                return perr(r, "invalid definition of event %s (%s): field %s given twice",
                            r->cur_id, ki->name, field_names[f]);
            d->idx[f] = i;
        } else {
            d->user[d->nuser++] = i;
        }
    }
    for (int f = 0; f < F_COUNT; f++)
        if ((ki->required & BIT(f)) && d->idx[f] < 0)
            return perr(r,
                        "invalid definition of event %s (%s, line %llu): the obligatory field "
                        "%s is missing%s",
                        r->cur_id, ki->name, (unsigned long long)r->cur_line, field_names[f],
                        r->opt.no_strict ? "" : " (old field names need the non-strict mode)");
    int rc = register_def(r, d, r->cur_id);
    if (rc == 0)
        r->cur = NULL;
    free(r->cur_id);
    r->cur_id = NULL;
    return rc;
}

/* A line starting with '%': text is what follows the '%'. */
static int header_line(reader *r, char *text)
{
    char *tok[8];
    int n = split(text, tok, 8);
    if (n < 0)
        return perr(r, "unterminated quote");
    if (n == 0)
        return perr(r, "empty header line");
    if (strcmp(tok[0], "EventDef") == 0)
        return begin_def(r, tok, n);
    if (strcmp(tok[0], "EndEventDef") == 0)
        return end_def(r);
    return add_def_field(r, tok, n);
}

/* ---- the model: one function per Paje event ------------------------------ */

static const char *type_id(const ptype *t)
{
    return t ? t->id : "0";
}

static const char *nature_name(int nature)
{
    static const char *const names[] = {"container", "state", "variable", "link", "event",
                                        "value"};
    return names[nature];
}

/* A type by alias or name; "0" is the root container type (NULL). */
static int find_type(reader *r, const char *ident, int nature, ptype **out)
{
    if (strcmp(ident, "0") == 0 && nature == ARI_NATURE_CONTAINER) {
        *out = NULL;
        return 0;
    }
    ptype *t = ari_strmap_get(r->types, ident, strlen(ident));
    if (!t)
        return perr(r, "unknown type '%s'", ident);
    if (t->nature != nature)
        return perr(r, "type '%s' is a %s type, not a %s type", ident, nature_name(t->nature),
                    nature_name(nature));
    *out = t;
    return 0;
}

/* A container by alias or name; "0" is the root. */
static int find_container(reader *r, const char *ident, pcont **out)
{
    pcont *c = strcmp(ident, "0") == 0 ? &r->root : ari_strmap_get(r->conts, ident, strlen(ident));
    if (!c)
        return perr(r, "unknown container '%s'", ident);
    if (c->destroyed)
        return perr(r, "container '%s' was already destroyed", ident);
    *out = c;
    return 0;
}

/* The type of an entity event, checked against its container's type. */
static int entity_type(reader *r, const char *ident, int nature, const pcont *c, ptype **out)
{
    if (find_type(r, ident, nature, out) != 0)
        return -1;
    if ((*out)->parent != c->type)
        return perr(r, "type '%s' belongs to container type '%s', but container '%s' is a '%s'",
                    ident, type_id((*out)->parent), c->id, type_id(c->type));
    return 0;
}

static int keep_valname(reader *r, char *name)
{
    if (reserve((void **)&r->valnames, &r->capvalnames, r->nvalnames + 1, sizeof(char *)) != 0) {
        free(name);
        return nomem(r);
    }
    r->valnames[r->nvalnames++] = name;
    return 0;
}

/* The name of a value of type t; a value never defined is created. */
static int value_of(reader *r, ptype *t, const char *ident, const char **out)
{
    size_t len = strlen(ident);
    const char *name = ari_strmap_get(t->values, ident, len);
    if (name) {
        *out = name;
        return 0;
    }
    char *copy = strdup(ident);
    if (!copy || keep_valname(r, copy) != 0)
        return copy ? -1 : nomem(r);
    if (!ari_strmap_put(t->values, ident, len, copy))
        return nomem(r);
    ari_type_def def = {ARI_NATURE_VALUE, copy, copy, t->id, NULL, NULL, NULL};
    *out = copy;
    return emit_type(r, &def);
}

/* Makes t findable by its alias and, unless taken, by its name. */
static int index_type(reader *r, ptype *t)
{
    if (!ari_strmap_put(r->types, t->id, strlen(t->id), t))
        return nomem(r);
    if (!ari_strmap_get(r->types, t->name, strlen(t->name)) &&
        !ari_strmap_put(r->types, t->name, strlen(t->name), t))
        return nomem(r);
    return 0;
}

static const char *field(const evdef *ev, char **tok, int f)
{
    return ev->idx[f] >= 0 ? tok[1 + ev->idx[f]] : NULL;
}

static int do_define_type(reader *r, const evdef *ev, char **tok)
{
    static const int natures[] = {
        [K_DEF_CONTAINER_TYPE] = ARI_NATURE_CONTAINER, [K_DEF_STATE_TYPE] = ARI_NATURE_STATE,
        [K_DEF_EVENT_TYPE] = ARI_NATURE_EVENT, [K_DEF_VARIABLE_TYPE] = ARI_NATURE_VARIABLE,
        [K_DEF_LINK_TYPE] = ARI_NATURE_LINK};
    const char *name = field(ev, tok, F_NAME);
    const char *alias = field(ev, tok, F_ALIAS);
    const char *id = alias ? alias : name;
    if (!*id)
        return perr(r, "empty type name");
    ptype *same = ari_strmap_get(r->types, id, strlen(id));
    if ((same && strcmp(same->id, id) == 0) || strcmp(id, "0") == 0)
        return perr(r, "type '%s' is defined twice", id);
    ptype *parent = NULL;
    if (find_type(r, field(ev, tok, F_TYPE), ARI_NATURE_CONTAINER, &parent) != 0)
        return -1;
    ptype *t = calloc(1, sizeof *t);
    if (!t || reserve((void **)&r->typelist, &r->captypes, r->ntypes + 1, sizeof(ptype *))) {
        free(t);
        return nomem(r);
    }
    r->typelist[r->ntypes++] = t; /* owned by the list from now on */
    t->nature = natures[ev->kind];
    t->parent = parent;
    t->id = strdup(id);
    t->name = strdup(name);
    int has_values = t->nature != ARI_NATURE_CONTAINER && t->nature != ARI_NATURE_VARIABLE;
    if (has_values)
        t->values = ari_strmap_new();
    if (!t->id || !t->name || (has_values && !t->values))
        return nomem(r);
    if (index_type(r, t) != 0)
        return -1;
    if (t->nature == ARI_NATURE_LINK &&
        (find_type(r, field(ev, tok, F_START_CONTAINER_TYPE), ARI_NATURE_CONTAINER, &t->start) ||
         find_type(r, field(ev, tok, F_END_CONTAINER_TYPE), ARI_NATURE_CONTAINER, &t->end)))
        return -1;
    ari_type_def def = {t->nature,
                        t->id,
                        t->name,
                        type_id(parent),
                        t->nature == ARI_NATURE_LINK ? type_id(t->start) : NULL,
                        t->nature == ARI_NATURE_LINK ? type_id(t->end) : NULL,
                        field(ev, tok, F_COLOR)};
    return emit_type(r, &def);
}

static int do_define_value(reader *r, const evdef *ev, char **tok)
{
    const char *tident = field(ev, tok, F_TYPE);
    ptype *t = ari_strmap_get(r->types, tident, strlen(tident));
    if (!t)
        return perr(r, "unknown type '%s'", tident);
    if (!t->values)
        return perr(r, "type '%s' is a %s type: it cannot have values", tident,
                    nature_name(t->nature));
    const char *name = field(ev, tok, F_NAME);
    const char *alias = field(ev, tok, F_ALIAS);
    const char *id = alias ? alias : name;
    const char *old = ari_strmap_get(t->values, id, strlen(id));
    if (old && strcmp(old, name) == 0)
        return 0; /* the same definition again */
    char *copy = strdup(name);
    if (!copy || keep_valname(r, copy) != 0)
        return copy ? -1 : nomem(r);
    if (!ari_strmap_put(t->values, id, strlen(id), copy))
        return nomem(r);
    if (!ari_strmap_get(t->values, name, strlen(name)) &&
        !ari_strmap_put(t->values, name, strlen(name), copy))
        return nomem(r);
    ari_type_def def = {ARI_NATURE_VALUE, id, copy, t->id, NULL, NULL, field(ev, tok, F_COLOR)};
    return emit_type(r, &def);
}

static int do_create_container(reader *r, const evdef *ev, char **tok, double time)
{
    ptype *type = NULL;
    pcont *parent = NULL;
    const char *name = field(ev, tok, F_NAME);
    const char *alias = field(ev, tok, F_ALIAS);
    const char *id = alias ? alias : name;
    if (find_type(r, field(ev, tok, F_TYPE), ARI_NATURE_CONTAINER, &type) != 0 ||
        find_container(r, field(ev, tok, F_CONTAINER), &parent) != 0)
        return -1;
    if (!type)
        return perr(r, "container '%s' cannot have the root type '0'", id);
    if (type->parent != parent->type)
        return perr(r, "container type '%s' is not a child of '%s', the type of container '%s'",
                    type->id, type_id(parent->type), parent->id);
    pcont *same = ari_strmap_get(r->conts, id, strlen(id));
    if ((same && strcmp(same->id, id) == 0) || strcmp(id, "0") == 0 || !*id)
        return perr(r, "container '%s' already exists", id);
    pcont *c = calloc(1, sizeof *c);
    if (!c || reserve((void **)&r->contlist, &r->capconts, r->nconts + 1, sizeof(pcont *)) != 0) {
        free(c);
        return nomem(r);
    }
    r->contlist[r->nconts++] = c;
    c->id = strdup(id);
    c->name = strdup(name);
    if (!c->id || !c->name || !ari_strmap_put(r->conts, id, strlen(id), c))
        return nomem(r);
    if (!ari_strmap_get(r->conts, name, strlen(name)) &&
        !ari_strmap_put(r->conts, name, strlen(name), c))
        return nomem(r);
    c->type = type;
    c->parent = parent;
    c->start = time;
    c->prev = parent->last_child;
    if (parent->last_child)
        parent->last_child->next = c;
    else
        parent->first_child = c;
    parent->last_child = c;
    ari_container info = {c->id, c->name, type->id, parent->id, time, time};
    return sink_answer(r, r->sink->on_container ? r->sink->on_container(r->sink->ctx, &info) : 0);
}

static cslot *slot_of(reader *r, pcont *c, ptype *t)
{
    for (int i = 0; i < c->nslots; i++)
        if (c->slots[i].type == t)
            return &c->slots[i];
    if (reserve_int((void **)&c->slots, &c->capslots, c->nslots + 1, sizeof *c->slots) != 0) {
        nomem(r);
        return NULL;
    }
    cslot *s = &c->slots[c->nslots++];
    memset(s, 0, sizeof *s);
    s->type = t;
    return s;
}

static int pop_state(reader *r, pcont *c, cslot *s, double end)
{
    sentry *e = &s->stack[--s->depth];
    ari_state st = {c->id,   s->type->id, e->value, e->start, end,
                    s->depth, e->fields,  (size_t)e->nfields};
    return sink_answer(r, r->sink->on_state ? r->sink->on_state(r->sink->ctx, &st) : 0);
}

static int push_state(reader *r, cslot *s, const evdef *ev, char **tok, double time,
                      const char *value)
{
    if (s->depth == s->cap) {
        int ncap = s->cap ? s->cap * 2 : 4;
        sentry *ns = realloc(s->stack, (size_t)ncap * sizeof *ns);
        if (!ns)
            return nomem(r);
        memset(ns + s->cap, 0, (size_t)(ncap - s->cap) * sizeof *ns);
        s->stack = ns;
        s->cap = ncap;
    }
    sentry *e = &s->stack[s->depth];
    e->start = time;
    e->value = value;
    if (copy_fields(ev, tok, &e->fields, &e->fcap, &e->buf, &e->bcap, &e->nfields) != 0)
        return nomem(r);
    s->depth++;
    return 0;
}

static int close_variable(reader *r, pcont *c, cslot *s, double end)
{
    if (!s->has_value)
        return 0;
    s->has_value = 0;
    ari_variable v = {c->id, s->type->id, s->var_start, end, s->var_value};
    return sink_answer(r, r->sink->on_variable ? r->sink->on_variable(r->sink->ctx, &v) : 0);
}

/* Ends every state and variable piece of c at time end. */
static int close_slots(reader *r, pcont *c, double end)
{
    for (int i = 0; i < c->nslots; i++) {
        cslot *s = &c->slots[i];
        while (s->depth > 0)
            if (pop_state(r, c, s, end) != 0)
                return -1;
        if (close_variable(r, c, s, end) != 0)
            return -1;
    }
    return 0;
}

static void unlink_child(pcont *c)
{
    pcont *p = c->parent;
    if (!p)
        return;
    if (c->prev)
        c->prev->next = c->next;
    else
        p->first_child = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        p->last_child = c->prev;
    c->prev = c->next = NULL;
}

/* Destroys top and everything under it at time end (post-order, without
 * recursion so that deep hierarchies cannot exhaust the stack). */
static int destroy_tree(reader *r, pcont *top, double end)
{
    pcont *c = top;
    for (;;) {
        if (c->first_child) {
            c = c->first_child;
            continue;
        }
        if (close_slots(r, c, end) != 0)
            return -1;
        c->destroyed = 1;
        unlink_child(c);
        const ari_sink *k = r->sink;
        if (sink_answer(r, k->on_container_end ? k->on_container_end(k->ctx, c->id, end) : 0) != 0)
            return -1;
        if (c == top)
            return 0;
        c = c->parent;
    }
}

static int do_destroy_container(reader *r, const evdef *ev, char **tok, double time)
{
    pcont *c = NULL;
    ptype *type = NULL;
    if (find_container(r, field(ev, tok, F_NAME), &c) != 0 ||
        find_type(r, field(ev, tok, F_TYPE), ARI_NATURE_CONTAINER, &type) != 0)
        return -1;
    if (c->type != type)
        return perr(r, "container '%s' is a '%s', not a '%s'", c->id, type_id(c->type),
                    type_id(type));
    return destroy_tree(r, c, time);
}

static int do_state(reader *r, const evdef *ev, char **tok, double time)
{
    pcont *c = NULL;
    ptype *t = NULL;
    if (find_container(r, field(ev, tok, F_CONTAINER), &c) != 0 ||
        entity_type(r, field(ev, tok, F_TYPE), ARI_NATURE_STATE, c, &t) != 0)
        return -1;
    cslot *s = slot_of(r, c, t);
    if (!s)
        return -1;
    const char *value = NULL;
    if ((ev->kind == K_SET_STATE || ev->kind == K_PUSH_STATE) &&
        value_of(r, t, field(ev, tok, F_VALUE), &value) != 0)
        return -1;
    switch (ev->kind) {
    case K_SET_STATE:
    case K_RESET_STATE:
        while (s->depth > 0)
            if (pop_state(r, c, s, time) != 0)
                return -1;
        return ev->kind == K_SET_STATE ? push_state(r, s, ev, tok, time, value) : 0;
    case K_PUSH_STATE:
        return push_state(r, s, ev, tok, time, value);
    default: /* K_POP_STATE */
        if (s->depth == 0)
            return perr(r, "pop of state type '%s' in container '%s' whose stack is empty",
                        t->id, c->id);
        return pop_state(r, c, s, time);
    }
}

static int do_variable(reader *r, const evdef *ev, char **tok, double time)
{
    pcont *c = NULL;
    ptype *t = NULL;
    double v;
    if (find_container(r, field(ev, tok, F_CONTAINER), &c) != 0 ||
        entity_type(r, field(ev, tok, F_TYPE), ARI_NATURE_VARIABLE, c, &t) != 0)
        return -1;
    const char *text = field(ev, tok, F_VALUE);
    if (parse_number(text, &v) != 0)
        return perr(r, "bad number '%s' for the variable value", text);
    cslot *s = slot_of(r, c, t);
    if (!s)
        return -1;
    if (ev->kind != K_SET_VARIABLE) {
        if (!s->has_value)
            return perr(r, "%s on variable '%s' of container '%s', which has no value yet",
                        kinds[ev->kind].name, t->id, c->id);
        v = ev->kind == K_ADD_VARIABLE ? s->var_value + v : s->var_value - v;
    }
    if (s->has_value && s->var_start != time) {
        if (close_variable(r, c, s, time) != 0)
            return -1;
    }
    if (!s->has_value) {
        s->has_value = 1;
        s->var_start = time;
    }
    s->var_value = v;
    return 0;
}

static int do_event(reader *r, const evdef *ev, char **tok, double time)
{
    pcont *c = NULL;
    ptype *t = NULL;
    const char *value = NULL;
    if (find_container(r, field(ev, tok, F_CONTAINER), &c) != 0 ||
        entity_type(r, field(ev, tok, F_TYPE), ARI_NATURE_EVENT, c, &t) != 0 ||
        value_of(r, t, field(ev, tok, F_VALUE), &value) != 0 || line_fields(r, ev, tok) != 0)
        return -1;
    ari_event e = {c->id, t->id, value, time, r->fields, (size_t)ev->nuser};
    return sink_answer(r, r->sink->on_event ? r->sink->on_event(r->sink->ctx, &e) : 0);
}

static plink *new_link(reader *r)
{
    plink *l = r->free_links;
    if (l) {
        r->free_links = l->next_free;
        return l;
    }
    l = calloc(1, sizeof *l);
    if (!l || reserve((void **)&r->linklist, &r->caplinks, r->nlinks + 1, sizeof(plink *)) != 0) {
        free(l);
        nomem(r);
        return NULL;
    }
    r->linklist[r->nlinks++] = l;
    return l;
}

/* The key of a pending link: container and type pointers, then the key. */
static int link_key(reader *r, const pcont *c, const ptype *t, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    *len = 2 * sizeof(void *) + klen;
    if (reserve((void **)&r->keybuf, &r->keycap, *len, 1) != 0)
        return nomem(r);
    memcpy(r->keybuf, &c, sizeof c);
    memcpy(r->keybuf + sizeof c, &t, sizeof t);
    memcpy(r->keybuf + 2 * sizeof(void *), key, klen);
    return 0;
}

static int complete_link(reader *r, plink *l, const evdef *ev, char **tok, double time,
                         pcont *here, const char *key)
{
    int total = l->nfields + ev->nuser;
    if (reserve_int((void **)&r->fields, &r->fieldcap, total ? total : 1, sizeof *r->fields) != 0)
        return nomem(r);
    memcpy(r->fields, l->fields, (size_t)l->nfields * sizeof *r->fields);
    for (int i = 0; i < ev->nuser; i++) {
        r->fields[l->nfields + i].name = ev->fnames[ev->user[i]];
        r->fields[l->nfields + i].value = tok[1 + ev->user[i]];
    }
    int start_first = l->has_start;
    ari_link info = {l->container->id,
                     l->type->id,
                     l->value,
                     start_first ? l->other->id : here->id,
                     start_first ? here->id : l->other->id,
                     key,
                     start_first ? l->time : time,
                     start_first ? time : l->time,
                     r->fields,
                     (size_t)total};
    return sink_answer(r, r->sink->on_link ? r->sink->on_link(r->sink->ctx, &info) : 0);
}

static int do_link(reader *r, const evdef *ev, char **tok, double time)
{
    int is_start = ev->kind == K_START_LINK;
    pcont *c = NULL, *end = NULL;
    ptype *t = NULL;
    const char *value = NULL;
    if (find_container(r, field(ev, tok, F_CONTAINER), &c) != 0 ||
        entity_type(r, field(ev, tok, F_TYPE), ARI_NATURE_LINK, c, &t) != 0 ||
        find_container(r, field(ev, tok, is_start ? F_START_CONTAINER : F_END_CONTAINER), &end) ||
        value_of(r, t, field(ev, tok, F_VALUE), &value) != 0)
        return -1;
    ptype *want = is_start ? t->start : t->end;
    if (end->type != want)
        return perr(r, "link type '%s' wants a '%s' at its %s, but container '%s' is a '%s'",
                    t->id, type_id(want), is_start ? "start" : "end", end->id,
                    type_id(end->type));
    const char *key = field(ev, tok, F_KEY);
    size_t klen;
    if (link_key(r, c, t, key, &klen) != 0)
        return -1;
    plink *l = ari_strmap_get(r->links, r->keybuf, klen);
    if (l && l->has_start == is_start)
        return perr(r, "link key '%s' is already used by a link whose %s is at line %llu", key,
                    is_start ? "start" : "end",
                    (unsigned long long)lineno_at(r, l->lineno, l->offset));
    if (l) {
        if (l->value != value)
            return perr(r, "link key '%s': value '%s' differs from '%s' at its other end", key,
                        value, l->value);
        int rc = complete_link(r, l, ev, tok, time, end, key);
        ari_strmap_remove(r->links, r->keybuf, klen);
        l->next_free = r->free_links;
        r->free_links = l;
        return rc;
    }
    if (!(l = new_link(r)))
        return -1;
    l->has_start = is_start;
    l->time = time;
    l->value = value;
    l->container = c;
    l->type = t;
    l->other = end;
    l->offset = r->offset;
    l->lineno = r->lineno;
    if (copy_fields(ev, tok, &l->fields, &l->fcap, &l->buf, &l->bcap, &l->nfields) != 0 ||
        !ari_strmap_put(r->links, r->keybuf, klen, l))
        return nomem(r);
    return 0;
}

/* One body line of the replay: tok holds its fields. */
static int dispatch(reader *r, const evdef *ev, char **tok)
{
    double time = 0;
    if (ev->idx[F_TIME] >= 0) {
        const char *text = tok[1 + ev->idx[F_TIME]];
        if (parse_number(text, &time) != 0)
            return perr(r, "bad time '%s'", text);
        r->last_time = time;
    }
    switch (ev->kind) {
    case K_DEF_CONTAINER_TYPE:
    case K_DEF_STATE_TYPE:
    case K_DEF_EVENT_TYPE:
    case K_DEF_VARIABLE_TYPE:
    case K_DEF_LINK_TYPE:
        return do_define_type(r, ev, tok);
    case K_DEF_ENTITY_VALUE:
        return do_define_value(r, ev, tok);
    case K_CREATE_CONTAINER:
        return do_create_container(r, ev, tok, time);
    case K_DESTROY_CONTAINER:
        return do_destroy_container(r, ev, tok, time);
    case K_SET_STATE:
    case K_PUSH_STATE:
    case K_POP_STATE:
    case K_RESET_STATE:
        return do_state(r, ev, tok, time);
    case K_SET_VARIABLE:
    case K_ADD_VARIABLE:
    case K_SUB_VARIABLE:
        return do_variable(r, ev, tok, time);
    case K_START_LINK:
    case K_END_LINK:
        return do_link(r, ev, tok, time);
    case K_NEW_EVENT:
        return do_event(r, ev, tok, time);
    default:
        ari_error_set(r->err, ARI_E_UNSUPPORTED,
                      "%s:%llu: split traces (PajeTraceFile) are not supported", r->name,
                      (unsigned long long)current_lineno(r));
        return -1;
    }
}

/* Splits a body line and finds its definition; checks the field count. */
static int parse_body(reader *r, char *line, const evdef **out)
{
    int n = split(line, r->tok, r->tokcap);
    if (n < 0)
        return perr(r, "unterminated quote");
    const evdef *ev = find_def(r, r->tok[0]);
    if (!ev)
        return perr(r, "unknown event id '%s'", r->tok[0]);
    if (n - 1 != ev->nfields)
        return perr(r, "event %s (%s) has %d fields, its definition has %d", r->tok[0],
                    kinds[ev->kind].name, n - 1, ev->nfields);
    *out = ev;
    return 0;
}

/* Where the first printable character of a line is. */
static char *skip_space(char *s)
{
    while (is_space(*s))
        s++;
    return s;
}

/* Pending links at the end of the trace. */
typedef struct pending_scan {
    plink *first;
    size_t count;
} pending_scan;

static void find_first_pending(void *ctx, const char *key, void *value)
{
    (void)key;
    pending_scan *ps = ctx;
    plink *l = value;
    ps->count++;
    if (!ps->first || l->offset < ps->first->offset)
        ps->first = l;
}

static int finish(reader *r)
{
    pending_scan ps = {NULL, 0};
    ari_strmap_foreach(r->links, find_first_pending, &ps);
    if (ps.count && !r->opt.ignore_incomplete_links) {
        r->lineno = ps.first->lineno;
        r->offset = ps.first->offset;
        return perr(r, "link has a %s but no %s (%zu incomplete link%s; they are ignored with "
                       "the ignore-incomplete-links option)",
                    ps.first->has_start ? "start" : "end", ps.first->has_start ? "end" : "start",
                    ps.count, ps.count > 1 ? "s" : "");
    }
    return r->root.destroyed ? 0 : destroy_tree(r, &r->root, r->last_time);
}

/* ---- the two passes ------------------------------------------------------ */

typedef struct scan {
    const char *path;
    entry *index;            /* built once the body is known to be unordered */
    size_t n, cap;
    int ordered;
    int have_time;
    double last;
    FILE *copy;              /* decompressed copy, for compressed inputs */
} scan;

static void progress(reader *r, double fraction)
{
    if (r->sink->on_progress && r->total > 0)
        r->sink->on_progress(r->sink->ctx, fraction * r->total, r->total);
}

/* Maps the decompressed trace (the file itself, or the temporary copy) into
 * r->map; used for the replay and to index the ordered prefix. */
static int map_source(reader *r, const char *path, FILE *copy)
{
    int fd = copy ? fileno(copy) : open(path, O_RDONLY | O_CLOEXEC);
    if (copy && fflush(copy) != 0)
        fd = -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        ari_error_set(r->err, ARI_E_IO, "%s: %s", r->name, ari_io_reason(errno));
        if (fd >= 0 && !copy)
            close(fd);
        return -1;
    }
    r->mapsize = (size_t)st.st_size;
    r->map = NULL;
    if (r->mapsize > 0) {
        void *m = mmap(NULL, r->mapsize, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            ari_error_set(r->err, ARI_E_IO, "%s: cannot map the file: %s", r->name,
                          strerror(errno));
            if (!copy)
                close(fd);
            return -1;
        }
        r->map = m;
    }
    if (!copy)
        close(fd);
    return 0;
}

static void unmap_source(reader *r)
{
    if (r->map)
        munmap((void *)r->map, r->mapsize);
    r->map = NULL;
    r->mapsize = 0;
}

/* Copies the line at off into linebuf; *next receives the following offset. */
static char *line_at(reader *r, uint64_t off, uint64_t *next)
{
    const char *p = r->map + off;
    size_t rest = r->mapsize - (size_t)off;
    const char *nl = memchr(p, '\n', rest);
    size_t n = nl ? (size_t)(nl - p) : rest;
    *next = off + n + (nl ? 1 : 0);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    if (reserve((void **)&r->linebuf, &r->linecap, n + 1, 1) != 0) {
        nomem(r);
        return NULL;
    }
    memcpy(r->linebuf, p, n);
    r->linebuf[n] = '\0';
    return r->linebuf;
}

/* The sort key of a checked body line: its time, or -infinity for the
 * definitions and container creations that are replayed first. *time gets
 * the line's time (NAN when it has none). */
static int sort_key(reader *r, const evdef *ev, double *key, double *time)
{
    *key = -INFINITY;
    *time = NAN;
    if (ev->idx[F_TIME] < 0)
        return 0;
    const char *text = r->tok[1 + ev->idx[F_TIME]];
    if (parse_number(text, time) != 0)
        return perr(r, "bad time '%s'", text);
    if (ev->kind != K_CREATE_CONTAINER)
        *key = *time;
    return 0;
}

static int add_entry(reader *r, scan *sc, double key, uint64_t off)
{
    if (reserve((void **)&sc->index, &sc->cap, sc->n + 1, sizeof *sc->index) != 0)
        return nomem(r);
    sc->index[sc->n].key = key;
    sc->index[sc->n].off = off;
    sc->n++;
    return 0;
}

/* The body turned out unordered at offset end: index the lines before it,
 * read again from the seekable source (they were all checked already). */
static int index_prefix(reader *r, scan *sc, uint64_t end)
{
    if (map_source(r, sc->path, sc->copy) != 0)
        return -1;
    uint64_t off = 0, next;
    int rc = 0;
    while (rc == 0 && off < end && off < r->mapsize) {
        char *line = line_at(r, off, &next);
        if (!line) {
            rc = -1;
            break;
        }
        char *s = line;
        while (is_space(*s))
            s++;
        if (*s != '\0' && *s != '#' && *s != '%') {
            const evdef *ev;
            double key, time;
            rc = parse_body(r, s, &ev) || sort_key(r, ev, &key, &time) ||
                 add_entry(r, sc, key, off);
        }
        off = next;
    }
    unmap_source(r);
    return rc ? -1 : 0;
}

/* Pass 1 for one body line: check it, and index it once the body is known
 * to be out of order. */
static int scan_body(reader *r, scan *sc, char *line, uint64_t offset)
{
    const evdef *ev;
    double key, time;
    if (parse_body(r, line, &ev) != 0)
        return -1;
    if (ev->kind == K_TRACE_FILE)
        return dispatch(r, ev, r->tok);
    if (sort_key(r, ev, &key, &time) != 0)
        return -1;
    if (ev->idx[F_TIME] >= 0) {
        if (sc->have_time && time < sc->last && sc->ordered) {
            sc->ordered = 0;
            if (index_prefix(r, sc, offset) != 0)
                return -1;
        }
        sc->have_time = 1;
        sc->last = time;
    }
    return sc->ordered ? 0 : add_entry(r, sc, key, offset);
}

static FILE *temp_copy(reader *r)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/ariadne-paje-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        ari_error_set(r->err, ARI_E_IO, "%s: cannot create a temporary file: %s", r->name,
                      ari_io_reason(errno));
        return NULL;
    }
    unlink(path);
    FILE *f = fdopen(fd, "w+");
    if (!f) {
        close(fd);
        ari_error_set(r->err, ARI_E_IO, "%s: %s", r->name, ari_io_reason(errno));
    }
    return f;
}

/* ---- a file cut in its last line (see paje.h) ---- */

/* The last body line, and a failure kept until the end of the file shows
 * whether the line that failed was a cut last line. */
typedef struct tail {
    uint64_t off, line; /* the last body line read fine */
    int body;           /* there was one */
    int failed;         /* a body line failed: error, and where */
    struct {
        uint64_t off, line;
    } bad;
    ari_error error;
} tail;

static int may_be_cut(const reader *r)
{
    return r->opt.report && r->sink_rc == 0 && strcmp(r->err->code, ARI_E_INVALID_INPUT) == 0;
}

static int defer_failure(reader *r, tail *t, uint64_t off)
{
    t->failed = 1;
    t->bad.off = off;
    t->bad.line = r->lineno;
    t->error = *r->err;
    ari_error_clear(r->err);
    return 0;
}

static void note_comment(reader *r, const char *text)
{
    ari_paje_report *rep = r->opt.report;
    if (!rep || rep->first_comment[0])
        return;
    text = skip_space((char *)text);
    size_t n = strcspn(text, "\r");
    if (n >= sizeof rep->first_comment)
        n = sizeof rep->first_comment - 1;
    memcpy(rep->first_comment, text, n);
    rep->first_comment[n] = '\0';
}

/* 1 if the decompressed trace ends with a newline (or is empty), 0 if not,
 * -1 on a read error. */
static int ends_with_newline(reader *r, const char *path, scan *sc)
{
    int fd = sc->copy ? fileno(sc->copy) : open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char last = '\n';
    int ok = fd >= 0 && (!sc->copy || fflush(sc->copy) == 0) && fstat(fd, &st) == 0 &&
             (st.st_size == 0 || pread(fd, &last, 1, st.st_size - 1) == 1);
    if (!ok)
        ari_error_set(r->err, ARI_E_IO, "%s: %s", r->name, ari_io_reason(errno));
    if (fd >= 0 && !sc->copy)
        close(fd);
    return ok ? last == '\n' : -1;
}

/* At the end of the scan: a failed last line without a newline is a cut
 * one (skipped by the replay), else its failure is the error; a good last
 * line without a newline is watched by the replay. */
static int settle_tail(reader *r, const char *path, scan *sc, tail *t)
{
    int nl = ends_with_newline(r, path, sc);
    if (nl < 0)
        return -1;
    ari_paje_report *rep = r->opt.report;
    if (t->failed && nl) {
        *r->err = t->error;
        return -1;
    }
    if (t->failed) {
        rep->cut_line = t->bad.line;
        snprintf(rep->cut_reason, sizeof rep->cut_reason, "%s", t->error.message);
        r->skip_off = t->bad.off;
    } else if (!nl) {
        r->tail_off = t->off;
        r->tail_line = t->line;
    }
    return 0;
}

static int scan_file(reader *r, const char *path, scan *sc)
{
    ari_input *in = ari_input_open(path, r->name, r->err);
    if (!in)
        return -1;
    r->total = (double)ari_input_total_bytes(in);
    if (ari_input_is_compressed(in)) {
        if (!(sc->copy = temp_copy(r))) {
            ari_input_close(in);
            return -1;
        }
        ari_input_set_tee(in, sc->copy);
    }
    int rc = 0;
    char *line;
    size_t len;
    tail t;
    memset(&t, 0, sizeof t);
    while ((line = ari_input_getline(in, &len, r->err)) != NULL) {
        r->lineno = ari_input_lineno(in);
        if (t.failed) { /* the bad line was not the last one */
            *r->err = t.error;
            rc = -1;
            break;
        }
        char *s = skip_space(line);
        if (*s == '\0' || *s == '#') {
            if (*s == '#' && r->ndefs == 0 && !r->cur)
                note_comment(r, s + 1);
            continue;
        }
        uint64_t off = ari_input_line_offset(in);
        rc = *s == '%' ? header_line(r, s + 1) : scan_body(r, sc, s, off);
        if (rc != 0 && *s != '%' && may_be_cut(r))
            rc = defer_failure(r, &t, off);
        else if (rc == 0 && *s != '%')
            t.off = off, t.line = r->lineno, t.body = 1;
        if (rc != 0)
            break;
        if ((r->lineno & 0xffff) == 0 && r->total > 0)
            progress(r, 0.3 * (double)ari_input_bytes_read(in) / r->total);
    }
    if (rc == 0 && ari_input_failed(in))
        rc = -1;
    if (rc == 0 && r->opt.report && (t.failed || t.body))
        rc = settle_tail(r, path, sc, &t);
    if (rc == 0 && r->cur) {
        r->lineno = r->cur_line;
        rc = perr(r, "%%EventDef %s is not closed by %%EndEventDef", r->cur_id);
    }
    if (rc == 0 && r->ndefs == 0)
        rc = ari_error_set(r->err, ARI_E_INVALID_INPUT, "%s: %s", r->name,
                           ari_input_lineno(in) ? "not a Paje trace: no %EventDef header"
                                                : "empty file");
    ari_input_close(in);
    r->lineno = 0;
    return rc;
}

/* The kept last line without a newline failed in the replay: it was cut
 * after all. Reported, and the trace end stays where it was. */
static int cut_in_replay(reader *r, double last_time)
{
    ari_paje_report *rep = r->opt.report;
    rep->cut_line = r->tail_line;
    snprintf(rep->cut_reason, sizeof rep->cut_reason, "%s", r->err->message);
    ari_error_clear(r->err);
    r->last_time = last_time;
    return 0;
}

static int replay_line(reader *r, char *line, double done)
{
    const evdef *ev;
    double last_time = r->last_time;
    if (parse_body(r, line, &ev) != 0 || dispatch(r, ev, r->tok) != 0)
        return r->offset == r->tail_off && may_be_cut(r) ? cut_in_replay(r, last_time) : -1;
    if ((++r->nprocessed & 0xffff) == 0)
        progress(r, 0.3 + 0.7 * done);
    return 0;
}

/* Pass 2 over an ordered body: every body line in file order, streamed
 * again from the plain file or the decompressed copy (bounded memory). */
static int replay_in_order(reader *r, const char *path, FILE *copy)
{
    ari_input *in;
    if (copy) {
        if (fflush(copy) != 0 || lseek(fileno(copy), 0, SEEK_SET) != 0) {
            ari_error_set(r->err, ARI_E_IO, "%s: %s", r->name, ari_io_reason(errno));
            return -1;
        }
        in = ari_input_open_fd(fileno(copy), r->name, r->err);
    } else {
        in = ari_input_open(path, r->name, r->err);
    }
    if (!in)
        return -1;
    double size = (double)ari_input_total_bytes(in);
    int rc = 0;
    char *line;
    size_t len;
    while ((line = ari_input_getline(in, &len, r->err)) != NULL) {
        r->lineno = ari_input_lineno(in);
        r->offset = ari_input_line_offset(in);
        char *s = skip_space(line);
        if (*s == '\0' || *s == '#' || *s == '%' || r->offset == r->skip_off)
            continue;
        double done = size > 0 ? (double)ari_input_bytes_read(in) / size : 1.0;
        if ((rc = replay_line(r, s, done)) != 0)
            break;
    }
    if (rc == 0 && ari_input_failed(in))
        rc = -1;
    ari_input_close(in);
    return rc;
}

/* ---- in-place introsort of the index by (time, offset) ---- */

static int entry_less(const entry *a, const entry *b)
{
    return a->key < b->key || (a->key == b->key && a->off < b->off);
}

static void swap_entries(entry *a, entry *b)
{
    entry t = *a;
    *a = *b;
    *b = t;
}

static void insertion_sort(entry *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        entry x = a[i];
        size_t j = i;
        while (j > 0 && entry_less(&x, &a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void sift_down(entry *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && entry_less(&a[child], &a[child + 1]))
            child++;
        if (!entry_less(&a[root], &a[child]))
            return;
        swap_entries(&a[root], &a[child]);
        root = child;
    }
}

static void heap_sort(entry *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (size_t i = n; i-- > 1;) {
        swap_entries(&a[0], &a[i]);
        sift_down(a, 0, i);
    }
}

static void intro_sort(entry *a, size_t n, int depth)
{
    while (n > 24) {
        if (depth-- == 0) {
            heap_sort(a, n);
            return;
        }
        size_t mid = n / 2;
        if (entry_less(&a[mid], &a[0]))
            swap_entries(&a[mid], &a[0]);
        if (entry_less(&a[n - 1], &a[0]))
            swap_entries(&a[n - 1], &a[0]);
        if (entry_less(&a[n - 1], &a[mid]))
            swap_entries(&a[n - 1], &a[mid]);
        entry pivot = a[mid];
        size_t i = 0, j = n - 1;
        for (;;) {
            while (entry_less(&a[i], &pivot))
                i++;
            while (entry_less(&pivot, &a[j]))
                j--;
            if (i >= j)
                break;
            swap_entries(&a[i], &a[j]);
            i++;
            j--;
        }
        /* [0, j] and [j + 1, n): recurse into the smaller part. */
        size_t left = j + 1;
        if (left < n - left) {
            intro_sort(a, left, depth);
            a += left;
            n -= left;
        } else {
            intro_sort(a + left, n - left, depth);
            n = left;
        }
    }
    insertion_sort(a, n);
}

static void sort_index(entry *a, size_t n)
{
    int depth = 2;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    intro_sort(a, n, depth);
}

/* Pass 2 over an unordered body: in the order of the sorted index. */
static int replay_sorted(reader *r, scan *sc)
{
    sort_index(sc->index, sc->n);
    for (size_t i = 0; i < sc->n; i++) {
        uint64_t next;
        r->offset = sc->index[i].off;
        r->lineno = 0;
        if (r->offset >= r->mapsize) {
            ari_error_set(r->err, ARI_E_IO, "%s: the file changed while it was read", r->name);
            return -1;
        }
        char *line = line_at(r, r->offset, &next);
        if (!line || replay_line(r, skip_space(line), (double)i / (double)sc->n) != 0)
            return -1;
    }
    return 0;
}

/* ---- set-up and tear-down ---- */

static void free_cont(pcont *c)
{
    for (int i = 0; i < c->nslots; i++) {
        cslot *s = &c->slots[i];
        for (int k = 0; k < s->cap; k++) {
            free(s->stack[k].fields);
            free(s->stack[k].buf);
        }
        free(s->stack);
    }
    free(c->slots);
    if (c->id && strcmp(c->id, "0") != 0) {
        free(c->id);
        free(c->name);
    }
}

static void free_reader(reader *r)
{
    for (size_t i = 0; i < r->ndefs; i++)
        free_def(r->defs[i]);
    free(r->defs);
    free_def(r->cur);
    free(r->cur_id);
    ari_strmap_free(r->ids);
    for (size_t i = 0; i < r->ntypes; i++) {
        free(r->typelist[i]->id);
        free(r->typelist[i]->name);
        ari_strmap_free(r->typelist[i]->values);
        free(r->typelist[i]);
    }
    free(r->typelist);
    ari_strmap_free(r->types);
    for (size_t i = 0; i < r->nvalnames; i++)
        free(r->valnames[i]);
    free(r->valnames);
    for (size_t i = 0; i < r->nconts; i++) {
        free_cont(r->contlist[i]);
        free(r->contlist[i]);
    }
    free(r->contlist);
    free_cont(&r->root);
    ari_strmap_free(r->conts);
    for (size_t i = 0; i < r->nlinks; i++) {
        void *owned[] = {r->linklist[i]->fields, r->linklist[i]->buf, r->linklist[i]};
        ari_free_all(owned, sizeof owned / sizeof owned[0]);
    }
    free(r->linklist);
    ari_strmap_free(r->links);
    void *owned[] = {r->tok, r->fields, r->linebuf, r->keybuf};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
}

static int init_reader(reader *r, const char *name, const ari_paje_options *opt,
                       const ari_sink *sink, ari_error *err)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    if (opt)
        r->opt = *opt;
    r->sink = sink;
    r->err = err;
    r->root.id = "0";
    r->root.name = "0";
    r->types = ari_strmap_new();
    r->conts = ari_strmap_new();
    r->links = ari_strmap_new();
    r->max_fields = 8;
    r->tokcap = 8;
    r->skip_off = r->tail_off = UINT64_MAX;
    if (r->opt.report)
        memset(r->opt.report, 0, sizeof *r->opt.report);
    r->tok = malloc(8 * sizeof *r->tok);
    if (!r->types || !r->conts || !r->links || !r->tok)
        return nomem(r);
    return 0;
}

int ari_paje_read(const char *path, const char *display_name, const ari_paje_options *opt,
                  const ari_sink *sink, ari_error *err)
{
    static const ari_sink no_sink = {0};
    reader r;
    scan sc = {path, NULL, 0, 0, 1, 0, 0, NULL};
    ari_error_clear(err);
    if (!display_name)
        display_name = path;
    int rc = init_reader(&r, display_name, opt, sink ? sink : &no_sink, err);
    if (rc == 0)
        rc = scan_file(&r, path, &sc);
    if (rc == 0 && sc.ordered)
        rc = replay_in_order(&r, path, sc.copy);
    else if (rc == 0 && (rc = map_source(&r, path, sc.copy)) == 0)
        rc = replay_sorted(&r, &sc);
    if (rc == 0)
        rc = finish(&r);
    if (rc == 0 && r.opt.report && r.tail_off != UINT64_MAX && !r.opt.report->cut_line)
        r.opt.report->unterminated_line = r.tail_line;
    if (rc == 0)
        progress(&r, 1.0);
    unmap_source(&r);
    if (sc.copy)
        fclose(sc.copy);
    free(sc.index);
    int sink_rc = r.sink_rc;
    free_reader(&r);
    if (rc != 0)
        return sink_rc ? sink_rc : -1;
    return 0;
}

int ari_paje_probe(const char *head, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (is_space(head[i]) || head[i] == '\n'))
            i++;
        if (i < len && head[i] == '#') {
            while (i < len && head[i] != '\n')
                i++;
            continue;
        }
        static const char tag[] = "%EventDef";
        size_t n = sizeof tag - 1;
        if (i < len && head[i] == '%') {
            size_t j = i + 1;
            while (j < len && is_space(head[j]))
                j++;
            return len - j >= n - 1 && memcmp(head + j, tag + 1, n - 1) == 0;
        }
        return 0;
    }
    return 0;
}
