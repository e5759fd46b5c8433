/* hpctoolkit.c: HPCToolkit experiment.xml + metric-db (see hpctoolkit.h).
 * The metric-db files are read whole (num_nodes x num_metrics doubles per
 * rank and thread: small next to the XML), then expat streams the XML:
 * the tables fill id -> name maps, the CCT elements become nodes, and
 * statements adjust their parent's exclusive values. Values are reported
 * at the end, once every subtraction is done. */
#include "ingest/hpctoolkit.h"

#include <expat.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"
#include "util/strmap.h"

#define DB_TAG "HPCPROF-metricdb__"
#define DB_HEADER 32

typedef struct metricdb {
    int64_t rank, thread;
    int proc;
    double *vals;          /* [num_nodes * num_metrics], node-major, node 1 first */
} metricdb;

typedef struct frame {
    int64_t nid;           /* the element's i, or 0 */
    int line;              /* its l */
    int64_t hparent;       /* the graph node its children hang from (-1 none) */
    int in_profile;        /* inside SecCallPathProfileData */
} frame;

typedef struct hpc {
    const ari_profile_sink *k;
    ari_error *err;
    const char *name;
    XML_Parser parser;
    int failed;
    ari_strmap *modules, *files, *procs; /* id -> malloc'd name */
    struct { int64_t i; char *n; } *mdb; /* MetricDB entries */
    int nmdb, mdb_cap;
    int num_nodes, num_metrics;
    metricdb *dbs;
    size_t ndb;
    frame *stack;
    int depth, stack_cap;
    char *src_file;        /* Hatchet's global: file of the last PF/Pr/L */
    int64_t *graph;        /* nids that are nodes, in document order */
    int64_t ngraph, graph_cap;
    ari_profile_node *pending; /* the nodes, declared at the end */
    unsigned char *is_exclusive; /* per metric */
    int *metric_index;     /* sink index per metric */
} hpc;

/* ---- metric-db ---- */

static int32_t be32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static double be_double(const unsigned char *p)
{
    uint64_t bits = 0;
    for (int b = 0; b < 8; b++)
        bits = bits << 8 | p[b];
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

int ari_hpctoolkit_is_metricdb(const char *name)
{
    size_t len = strlen(name);
    return len > 10 && strcmp(name + len - 10, ".metric-db") == 0;
}

/* Rank and thread from "...-<rank>-<thread>-<host>-<pid>-<n>.metric-db". */
static int parse_db_name(const char *name, int64_t *rank, int64_t *thread)
{
    regex_t re;
    regmatch_t m[3];
    if (regcomp(&re, "-([0-9]+)-([0-9]+)-[A-Za-z0-9_]+-[0-9]+-[0-9]\\.metric-db$", REG_EXTENDED) != 0)
        return -1;
    int rc = regexec(&re, name, 3, m, 0);
    regfree(&re);
    if (rc != 0)
        return -1;
    *rank = strtoll(name + m[1].rm_so, NULL, 10);
    *thread = strtoll(name + m[2].rm_so, NULL, 10);
    return *rank >= 0 && *rank < (1 << 30) && *thread >= 0 && *thread < (1 << 30) ? 0 : -1;
}

static int read_db(hpc *h, const char *path, const char *name, metricdb *db)
{
    if (parse_db_name(name, &db->rank, &db->thread) < 0)
        return ari_error_set(h->err, ARI_E_INVALID_INPUT,
                             "%s: not a metric-db name (<exe>-<rank>-<thread>-<host>-<pid>-<n>.metric-db)", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ari_error_set(h->err, ARI_E_IO, "%s: cannot open", name);
    unsigned char head[DB_HEADER];
    int rc = 0;
    long size = -1;
    if (fread(head, 1, DB_HEADER, f) != DB_HEADER || memcmp(head, DB_TAG, strlen(DB_TAG)) != 0) {
        rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: not an HPCToolkit metric-db (bad header)", name);
    } else if (head[23] != 'b') {
        rc = ari_error_set(h->err, ARI_E_UNSUPPORTED, "%s: only big-endian metric-db files are supported", name);
    } else if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) {
        rc = ari_error_set(h->err, ARI_E_IO, "%s: cannot read", name);
    }
    int32_t nn = be32(head + 24), nm = be32(head + 28);
    if (rc == 0 && (nn <= 0 || nm <= 0 || nn > (1 << 24) || nm > 4096))
        rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: bad counts (%d nodes, %d metrics)", name, nn, nm);
    if (rc == 0 && h->num_nodes && (nn != h->num_nodes || nm != h->num_metrics))
        rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: %d nodes x %d metrics, other files have %d x %d",
                           name, nn, nm, h->num_nodes, h->num_metrics);
    uint64_t want = DB_HEADER + (uint64_t)nn * (uint64_t)nm * 8;
    if (rc == 0 && (uint64_t)size != want)
        rc = ari_error_set(h->err, ARI_E_INVALID_INPUT,
                           "%s: wrong size: %ld bytes, expected %llu for %d nodes x %d metrics", name, size,
                           (unsigned long long)want, nn, nm);
    unsigned char *raw = NULL;
    if (rc == 0) {
        raw = malloc(want - DB_HEADER);
        db->vals = malloc((size_t)nn * (size_t)nm * sizeof *db->vals);
        if (!raw || !db->vals)
            rc = ari_error_set(h->err, ARI_E_NOMEM, "out of memory");
    }
    if (rc == 0 && (fseek(f, DB_HEADER, SEEK_SET) != 0 || fread(raw, 1, want - DB_HEADER, f) != want - DB_HEADER))
        rc = ari_error_set(h->err, ARI_E_IO, "%s: short read", name);
    if (rc == 0) {
        for (size_t i = 0; i < (size_t)nn * (size_t)nm; i++)
            db->vals[i] = be_double(raw + 8 * i);
        h->num_nodes = nn;
        h->num_metrics = nm;
    }
    free(raw);
    fclose(f);
    return rc;
}

/* ---- XML ---- */

static const char *attr(const XML_Char **atts, const char *name)
{
    for (int i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], name) == 0)
            return atts[i + 1];
    return NULL;
}

static int xml_fail(hpc *h, const char *fmt, const char *arg)
{
    if (!h->failed) {
        char msg[512];
        snprintf(msg, sizeof msg, fmt, arg ? arg : "");
        ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s:%lu: %s", h->name,
                      (unsigned long)XML_GetCurrentLineNumber(h->parser), msg);
    }
    h->failed = 1;
    XML_StopParser(h->parser, XML_FALSE);
    return -1;
}

static int table_put(hpc *h, ari_strmap *m, const XML_Char **atts)
{
    const char *i = attr(atts, "i"), *n = attr(atts, "n");
    if (!i || !n)
        return xml_fail(h, "a table entry without i or n%s", "");
    char *copy = strdup(n);
    if (!copy)
        return xml_fail(h, "out of memory%s", "");
    free(ari_strmap_get(m, i, strlen(i)));
    if (!ari_strmap_put(m, i, strlen(i), copy)) {
        free(copy);
        return xml_fail(h, "out of memory%s", "");
    }
    return 0;
}

static int add_metricdb(hpc *h, const XML_Char **atts)
{
    const char *i = attr(atts, "i"), *n = attr(atts, "n");
    if (!i || !n)
        return xml_fail(h, "MetricDB without i or n%s", "");
    if (h->nmdb == h->mdb_cap) {
        int cap = h->mdb_cap ? 2 * h->mdb_cap : 8;
        void *grown = realloc(h->mdb, (size_t)cap * sizeof *h->mdb);
        if (!grown)
            return xml_fail(h, "out of memory%s", "");
        h->mdb = grown;
        h->mdb_cap = cap;
    }
    h->mdb[h->nmdb].i = strtoll(i, NULL, 10);
    h->mdb[h->nmdb].n = strdup(n);
    if (!h->mdb[h->nmdb].n)
        return xml_fail(h, "out of memory%s", "");
    h->nmdb++;
    return 0;
}

static const char *lookup(hpc *h, ari_strmap *m, const char *id, const char *what)
{
    const char *v = id ? ari_strmap_get(m, id, strlen(id)) : NULL;
    if (!v) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown %s id '%.60s'", what, id ? id : "(none)");
        xml_fail(h, "%s", msg);
    }
    return v;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Keeps a node (with copies of its strings) to declare at the end. */
static int add_graph_node(hpc *h, const ari_profile_node *n)
{
    if (h->ngraph == h->graph_cap) {
        int64_t cap = h->graph_cap ? 2 * h->graph_cap : 256;
        int64_t *grown = realloc(h->graph, (size_t)cap * sizeof *grown);
        ari_profile_node *more = grown ? realloc(h->pending, (size_t)cap * sizeof *more) : NULL;
        if (grown)
            h->graph = grown;
        if (!more)
            return xml_fail(h, "out of memory%s", "");
        h->pending = more;
        h->graph_cap = cap;
    }
    ari_profile_node *p = &h->pending[h->ngraph];
    *p = *n;
    p->name = strdup(n->name);
    p->module = strdup(n->module);
    p->file = strdup(n->file);
    h->graph[h->ngraph++] = n->id;
    if (!p->name || !p->module || !p->file)
        return xml_fail(h, "out of memory%s", "");
    return 0;
}

/* Hatchet visits siblings in the order of their frames: the sorted
 * (key, value) pairs, so statements and loops ("file", "line", "type")
 * come before functions ("name", "type"), then by file, line and type,
 * or by name. Equal frames come in reverse document order, as the
 * dataframe of Hatchet's test oracle (hpctoolkit-cpi-graphframe.csv). */
static const ari_profile_node *sort_nodes;

static int frame_order(const void *a, const void *b)
{
    const ari_profile_node *x = &sort_nodes[*(const int64_t *)a], *y = &sort_nodes[*(const int64_t *)b];
    int xf = strcmp(x->kind, "function") == 0, yf = strcmp(y->kind, "function") == 0;
    int c = 0;
    if (xf != yf)
        c = xf - yf;
    else if (xf)
        c = strcmp(x->name, y->name);
    else if ((c = strcmp(x->file, y->file)) == 0 && (c = (x->line > y->line) - (x->line < y->line)) == 0)
        c = strcmp(x->kind, y->kind);
    if (c == 0)
        c = (*(const int64_t *)a < *(const int64_t *)b) - (*(const int64_t *)a > *(const int64_t *)b);
    return c;
}

static int declare_nodes(hpc *h)
{
    int64_t *order = malloc((size_t)(h->ngraph ? h->ngraph : 1) * sizeof *order);
    if (!order)
        return ari_error_set(h->err, ARI_E_NOMEM, "out of memory");
    for (int64_t i = 0; i < h->ngraph; i++)
        order[i] = i;
    sort_nodes = h->pending;
    qsort(order, (size_t)h->ngraph, sizeof *order, frame_order);
    int rc = 0;
    for (int64_t i = 0; i < h->ngraph && rc == 0; i++)
        if (h->k->on_node(h->k->ctx, &h->pending[order[i]]) != 0)
            rc = h->err && h->err->code[0] ? -1
                 : ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: node refused", h->name);
    free(order);
    return rc;
}

/* Subtracts a statement's exclusive values from its XML parent's row. */
static void subtract_statement(hpc *h, int64_t nid, int64_t parent_nid)
{
    if (parent_nid < 1 || parent_nid > h->num_nodes)
        return;
    for (size_t d = 0; d < h->ndb; d++)
        for (int m = 0; m < h->num_metrics; m++)
            if (h->is_exclusive[m])
                h->dbs[d].vals[(parent_nid - 1) * h->num_metrics + m] -=
                    h->dbs[d].vals[(nid - 1) * h->num_metrics + m];
}

static int set_file(hpc *h, const char *f)
{
    const char *name = lookup(h, h->files, f, "file");
    if (!name)
        return -1;
    free(h->src_file);
    h->src_file = strdup(name);
    return h->src_file ? 0 : xml_fail(h, "out of memory%s", "");
}

/* A CCT element: decides its node (if any) and what its children hang from. */
static int cct_element(hpc *h, const char *tag, const XML_Char **atts, frame *self, const frame *up)
{
    const char *i = attr(atts, "i"), *l = attr(atts, "l");
    int top = !up->nid; /* a PF directly under SecCallPathProfileData */
    self->nid = i ? strtoll(i, NULL, 10) : 0;
    self->line = l ? atoi(l) : 0;
    self->hparent = up->hparent;
    if (strcmp(tag, "M") == 0)
        return 0;
    if (self->nid < 1 || self->nid > h->num_nodes)
        return xml_fail(h, "CCT id %s outside the metric-db's node range", i ? i : "(none)");
    char name[4096];
    const char *module = "", *file = "", *kind = "function";
    if (strcmp(tag, "PF") == 0 || strcmp(tag, "Pr") == 0) {
        const char *proc = lookup(h, h->procs, attr(atts, "n"), "procedure");
        if (!proc || set_file(h, attr(atts, "f")) < 0)
            return -1;
        if (strcmp(tag, "Pr") == 0 && !*proc)
            return 0; /* an unnamed procedure is not a node */
        const char *lm = lookup(h, h->modules, attr(atts, "lm"), "load module");
        if (!lm)
            return -1;
        if (!top && up->line != 0)
            snprintf(name, sizeof name, "%d:%s", up->line, proc);
        else
            snprintf(name, sizeof name, "%s", proc);
        module = lm;
        file = h->src_file;
    } else if (strcmp(tag, "L") == 0) {
        if (set_file(h, attr(atts, "f")) < 0)
            return -1;
        snprintf(name, sizeof name, "Loop@%s:%d", base_name(h->src_file), self->line);
        file = h->src_file;
        kind = "loop";
    } else if (strcmp(tag, "S") == 0) {
        if (!h->src_file)
            return xml_fail(h, "a statement before any procedure%s", "");
        snprintf(name, sizeof name, "%s:%d", base_name(h->src_file), self->line);
        file = h->src_file;
        kind = "statement";
        subtract_statement(h, self->nid, up->nid);
    } else if (strcmp(tag, "C") == 0) {
        return 0; /* call sites are not nodes: children take their line */
    } else {
        return 0; /* unknown elements are ignored, as Hatchet does */
    }
    if (top && strcmp(tag, "PF") != 0)
        return xml_fail(h, "<%s> directly under SecCallPathProfileData", tag);
    ari_profile_node n = {self->nid, top ? -1 : up->hparent, name, module, file, self->line, kind};
    self->hparent = self->nid;
    return add_graph_node(h, &n);
}

static void XMLCALL on_start(void *ud, const XML_Char *tag, const XML_Char **atts)
{
    hpc *h = ud;
    if (h->failed)
        return;
    if (h->depth == h->stack_cap) {
        int cap = h->stack_cap ? 2 * h->stack_cap : 64;
        frame *grown = realloc(h->stack, (size_t)cap * sizeof *grown);
        if (!grown) {
            xml_fail(h, "out of memory%s", "");
            return;
        }
        h->stack = grown;
        h->stack_cap = cap;
    }
    frame *up = h->depth ? &h->stack[h->depth - 1] : NULL;
    frame *self = &h->stack[h->depth++];
    memset(self, 0, sizeof *self);
    self->hparent = -1;
    if (h->depth == 1 && strcmp(tag, "HPCToolkitExperiment") != 0) {
        xml_fail(h, "not an HPCToolkit experiment.xml (root <%s>)", tag);
        return;
    }
    if (up && up->in_profile) {
        self->in_profile = 1;
        cct_element(h, tag, atts, self, up);
        return;
    }
    if (strcmp(tag, "SecCallPathProfileData") == 0) {
        if (!h->metric_index)
            xml_fail(h, "SecCallPathProfileData before the MetricDBTable%s", "");
        self->in_profile = 1;
    } else if (strcmp(tag, "LoadModule") == 0) {
        table_put(h, h->modules, atts);
    } else if (strcmp(tag, "File") == 0) {
        table_put(h, h->files, atts);
    } else if (strcmp(tag, "Procedure") == 0) {
        table_put(h, h->procs, atts);
    } else if (strcmp(tag, "MetricDB") == 0) {
        add_metricdb(h, atts);
    }
}

static int declare_metrics(hpc *h);

static void XMLCALL on_end(void *ud, const XML_Char *tag)
{
    hpc *h = ud;
    if (h->failed)
        return;
    h->depth--;
    if (strcmp(tag, "MetricDBTable") == 0 && declare_metrics(h) < 0)
        xml_fail(h, "%s", h->err ? h->err->message : "bad metrics");
}

static int cmp_mdb(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Hatchet's names: CPUTIME (usec|sec) (E|I) -> time / time (inc). */
static int declare_metrics(hpc *h)
{
    if (h->metric_index)
        return 0;
    if (h->nmdb != h->num_metrics)
        return ari_error_set(h->err, ARI_E_INVALID_INPUT,
                             "%s: the MetricDBTable lists %d metrics but the metric-db files hold %d", h->name,
                             h->nmdb, h->num_metrics);
    qsort(h->mdb, (size_t)h->nmdb, sizeof *h->mdb, cmp_mdb);
    h->metric_index = calloc((size_t)h->nmdb, sizeof *h->metric_index);
    h->is_exclusive = calloc((size_t)h->nmdb, 1);
    if (!h->metric_index || !h->is_exclusive)
        return ari_error_set(h->err, ARI_E_NOMEM, "out of memory");
    for (int m = 0; m < h->nmdb; m++) {
        const char *n = h->mdb[m].n;
        char name[512], partner[512];
        int inclusive = strstr(n, "(I)") != NULL || strstr(n, "(inc)") != NULL;
        const char *unit = strstr(n, "(usec)") ? "usec" : strstr(n, "(sec)") ? "s" : "";
        if (strcmp(n, "CPUTIME (usec) (E)") == 0 || strcmp(n, "CPUTIME (sec) (E)") == 0)
            snprintf(name, sizeof name, "time");
        else if (strcmp(n, "CPUTIME (usec) (I)") == 0 || strcmp(n, "CPUTIME (sec) (I)") == 0)
            snprintf(name, sizeof name, "time (inc)");
        else
            snprintf(name, sizeof name, "%s", n);
        size_t len = strlen(name);
        const char *pp = NULL;
        if (len > 4 && (strcmp(name + len - 4, " (I)") == 0 || strcmp(name + len - 4, " (E)") == 0)) {
            snprintf(partner, sizeof partner, "%.*s (%c)", (int)(len - 4), name, name[len - 2] == 'I' ? 'E' : 'I');
            for (int o = 0; o < h->nmdb; o++)
                if (strcmp(h->mdb[o].n, partner) == 0)
                    pp = partner;
        }
        h->is_exclusive[m] = !inclusive;
        ari_profile_metric pm = {name, n, unit, inclusive, pp};
        if (h->k->on_metric(h->k->ctx, &pm, &h->metric_index[m]) != 0)
            return h->err && h->err->code[0] ? -1
                   : ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: metric refused", h->name);
    }
    return 0;
}

static int parse_xml(hpc *h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ari_error_set(h->err, ARI_E_IO, "%s: cannot open", h->name);
    h->parser = XML_ParserCreate(NULL);
    if (!h->parser) {
        fclose(f);
        return ari_error_set(h->err, ARI_E_NOMEM, "out of memory");
    }
    XML_SetUserData(h->parser, h);
    XML_SetElementHandler(h->parser, on_start, on_end);
    char buf[1 << 16];
    int rc = 0, any = 0;
    for (;;) {
        size_t n = fread(buf, 1, sizeof buf, f);
        int final = n < sizeof buf;
        if (n)
            any = 1;
        if (memchr(buf, '\0', n)) {
            rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: a NUL byte: binary data, not XML", h->name);
            break;
        }
        if (XML_Parse(h->parser, buf, (int)n, final) == XML_STATUS_ERROR) {
            if (!h->failed)
                ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s:%lu: XML error: %s%s", h->name,
                              (unsigned long)XML_GetCurrentLineNumber(h->parser),
                              XML_ErrorString(XML_GetErrorCode(h->parser)),
                              any ? "" : " (empty file)");
            rc = -1;
            break;
        }
        if (final)
            break;
    }
    XML_ParserFree(h->parser);
    h->parser = NULL;
    fclose(f);
    if (rc == 0 && h->failed)
        rc = -1;
    if (rc == 0 && !h->metric_index)
        rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: no MetricDBTable", h->name);
    if (rc == 0 && h->ngraph == 0)
        rc = ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: no call path profile (no PF)", h->name);
    return rc;
}

static int emit_values(hpc *h)
{
    for (int64_t g = 0; g < h->ngraph; g++) {
        int64_t nid = h->graph[g];
        for (size_t d = 0; d < h->ndb; d++)
            for (int m = 0; m < h->num_metrics; m++)
                if (h->k->on_value(h->k->ctx, h->metric_index[m], nid, h->dbs[d].proc,
                                   h->dbs[d].vals[(nid - 1) * h->num_metrics + m]) != 0)
                    return h->err && h->err->code[0] ? -1
                           : ari_error_set(h->err, ARI_E_INVALID_INPUT, "%s: value refused", h->name);
    }
    return 0;
}

static void free_name(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    free(value);
}

int ari_hpctoolkit_read(const char *xml_path, const char *xml_name, const char *const *db_paths,
                        const char *const *db_names, size_t ndb, const ari_profile_sink *k,
                        ari_error *err)
{
    hpc h;
    memset(&h, 0, sizeof h);
    h.k = k;
    h.err = err;
    h.name = xml_name;
    h.modules = ari_strmap_new();
    h.files = ari_strmap_new();
    h.procs = ari_strmap_new();
    h.dbs = calloc(ndb ? ndb : 1, sizeof *h.dbs);
    int rc = 0;
    if (!h.modules || !h.files || !h.procs || !h.dbs)
        rc = ari_error_set(err, ARI_E_NOMEM, "out of memory");
    if (rc == 0 && ndb == 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: an HPCToolkit database without .metric-db files", xml_name);
    for (size_t d = 0; d < ndb && rc == 0; d++) {
        rc = read_db(&h, db_paths[d], db_names[d], &h.dbs[d]);
        h.ndb = d + 1;
        if (rc == 0 && k->on_proc(k->ctx, h.dbs[d].rank, h.dbs[d].thread, &h.dbs[d].proc) != 0)
            rc = err && err->code[0] ? -1 : ari_error_set(err, ARI_E_INVALID_INPUT, "%s: refused", db_names[d]);
    }
    if (rc == 0)
        rc = parse_xml(&h, xml_path);
    if (rc == 0)
        rc = declare_nodes(&h);
    if (rc == 0)
        rc = emit_values(&h);
    if (rc == 0 && k->on_progress)
        k->on_progress(k->ctx, 1.0);
    for (size_t d = 0; d < h.ndb; d++)
        free(h.dbs[d].vals);
    ari_strmap_foreach(h.modules, free_name, NULL);
    ari_strmap_foreach(h.files, free_name, NULL);
    ari_strmap_foreach(h.procs, free_name, NULL);
    ari_strmap_free(h.modules);
    ari_strmap_free(h.files);
    ari_strmap_free(h.procs);
    for (int m = 0; m < h.nmdb; m++)
        free(h.mdb[m].n);
    for (int64_t i = 0; i < h.ngraph; i++) {
        free((char *)h.pending[i].name);
        free((char *)h.pending[i].module);
        free((char *)h.pending[i].file);
    }
    void *owned[] = {h.dbs,     h.mdb,   h.stack,        h.src_file,
                     h.pending, h.graph, h.is_exclusive, h.metric_index};
    ari_free_all(owned, sizeof owned / sizeof owned[0]);
    return rc;
}

int ari_hpctoolkit_xml_probe(const char *head, size_t n)
{
    return memmem(head, n, "<HPCToolkitExperiment", 21) != NULL && !memchr(head, '\0', n);
}
