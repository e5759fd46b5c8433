/* paje_dump.c: prints what the Paje reader reports, in pj_dump's format.
 *
 *   paje_dump [-n] [-z] [-u] [-q] [-c] FILE
 *     -n  non-strict: accept old field names (pj_dump -n)
 *     -z  ignore incomplete links (pj_dump -z)
 *     -u  print user-defined fields (pj_dump -u)
 *     -q  print nothing but errors (time the reader alone)
 *     -c  print counts per nature instead of the rows
 *
 * Rows are `Container, parent, type, start, end, duration, name`,
 * `State, container, type, start, end, duration, imbrication, value`,
 * `Variable, ...`, `Event, ...`, `Link, ..., key` with names (not aliases)
 * like pj_dump 1.3.6, so `sort` of both outputs can be diffed. States,
 * variables, links and events come in the order the reader reports them
 * (when they end); containers come last, with their end times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/paje.h"
#include "util/strmap.h"

typedef struct cont_info {
    char *name;
    char *type;   /* type alias */
    char *parent; /* parent alias */
    double start, end;
    size_t order;
} cont_info;

typedef struct dump {
    int user, quiet, counts;
    ari_strmap *type_names;  /* type alias -> name */
    ari_strmap *conts;       /* container alias -> cont_info */
    cont_info **list;
    size_t ncont, capcont;
    double trace_end;
    size_t n[6];             /* rows per nature */
} dump;

static const char *type_name(dump *d, const char *alias)
{
    const char *n = ari_strmap_get(d->type_names, alias, strlen(alias));
    return n ? n : alias;
}

static const char *cont_name(dump *d, const char *alias)
{
    cont_info *c = ari_strmap_get(d->conts, alias, strlen(alias));
    return c ? c->name : alias;
}

static void print_fields(const dump *d, const ari_field *f, size_t n)
{
    if (d->user)
        for (size_t i = 0; i < n; i++)
            printf(", %s", f[i].value);
    putchar('\n');
}

static int on_type(void *ctx, const ari_type_def *t)
{
    dump *d = ctx;
    if (t->nature != ARI_NATURE_VALUE) {
        char *copy = strdup(t->name);
        if (!copy || !ari_strmap_put(d->type_names, t->alias, strlen(t->alias), copy))
            return 1;
    }
    return 0;
}

static int on_container(void *ctx, const ari_container *c)
{
    dump *d = ctx;
    cont_info *ci = calloc(1, sizeof *ci);
    if (!ci)
        return 1;
    ci->name = strdup(c->name);
    ci->type = strdup(c->type);
    ci->parent = strdup(c->parent);
    ci->start = c->start;
    ci->end = c->end;
    if (d->ncont == d->capcont) {
        d->capcont = d->capcont ? 2 * d->capcont : 64;
        cont_info **l = realloc(d->list, d->capcont * sizeof *l);
        if (!l)
            return 1;
        d->list = l;
    }
    d->list[d->ncont++] = ci;
    return ari_strmap_put(d->conts, c->alias, strlen(c->alias), ci) ? 0 : 1;
}

static int on_container_end(void *ctx, const char *alias, double end)
{
    dump *d = ctx;
    if (strcmp(alias, "0") == 0) {
        d->trace_end = end;
        return 0;
    }
    cont_info *ci = ari_strmap_get(d->conts, alias, strlen(alias));
    if (ci)
        ci->end = end;
    return 0;
}

static int on_state(void *ctx, const ari_state *s)
{
    dump *d = ctx;
    d->n[ARI_NATURE_STATE]++;
    if (d->quiet || d->counts)
        return 0;
    printf("State, %s, %s, %f, %f, %f, %f, %s", cont_name(d, s->container),
           type_name(d, s->type), s->start, s->end, s->end - s->start, (double)s->depth,
           s->value);
    print_fields(d, s->fields, s->nfields);
    return 0;
}

static int on_variable(void *ctx, const ari_variable *v)
{
    dump *d = ctx;
    d->n[ARI_NATURE_VARIABLE]++;
    if (d->quiet || d->counts)
        return 0;
    printf("Variable, %s, %s, %f, %f, %f, %f\n", cont_name(d, v->container),
           type_name(d, v->type), v->start, v->end, v->end - v->start, v->value);
    return 0;
}

static int on_link(void *ctx, const ari_link *l)
{
    dump *d = ctx;
    d->n[ARI_NATURE_LINK]++;
    if (d->quiet || d->counts)
        return 0;
    printf("Link, %s, %s, %f, %f, %f, %s, %s, %s, %s", cont_name(d, l->container),
           type_name(d, l->type), l->start, l->end, l->end - l->start, l->value,
           cont_name(d, l->start_container), cont_name(d, l->end_container), l->key);
    print_fields(d, l->fields, l->nfields);
    return 0;
}

static int on_event(void *ctx, const ari_event *e)
{
    dump *d = ctx;
    d->n[ARI_NATURE_EVENT]++;
    if (d->quiet || d->counts)
        return 0;
    printf("Event, %s, %s, %f, %s", cont_name(d, e->container), type_name(d, e->type), e->time,
           e->value);
    print_fields(d, e->fields, e->nfields);
    return 0;
}

static void print_containers(dump *d)
{
    d->n[ARI_NATURE_CONTAINER] = d->ncont + 1;
    if (d->quiet || d->counts)
        return;
    printf("Container, 0, 0, 0, %g, %g, 0\n", d->trace_end, d->trace_end);
    for (size_t i = 0; i < d->ncont; i++) {
        cont_info *c = d->list[i];
        printf("Container, %s, %s, %g, %g, %g, %s\n", cont_name(d, c->parent),
               type_name(d, c->type), c->start, c->end, c->end - c->start, c->name);
    }
}

static void free_name(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    free(value);
}

int main(int argc, char **argv)
{
    ari_paje_options opt = {0};
    dump d;
    memset(&d, 0, sizeof d);
    int c;
    while ((c = getopt(argc, argv, "nzuqc")) != -1) {
        switch (c) {
        case 'n': opt.no_strict = 1; break;
        case 'z': opt.ignore_incomplete_links = 1; break;
        case 'u': d.user = 1; break;
        case 'q': d.quiet = 1; break;
        case 'c': d.counts = 1; break;
        default:
            fprintf(stderr, "usage: %s [-n] [-z] [-u] [-q] [-c] FILE\n", argv[0]);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: %s [-n] [-z] [-u] [-q] [-c] FILE\n", argv[0]);
        return 2;
    }
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    d.type_names = ari_strmap_new();
    d.conts = ari_strmap_new();
    ari_sink sink = {&d, on_type, on_container, on_container_end, on_state,
                     on_variable, on_link, on_event, NULL};
    ari_error err;
    int rc = ari_paje_read(argv[optind], NULL, &opt, &sink, &err);
    if (rc == 0)
        print_containers(&d);
    else
        fprintf(stderr, "%s (%s)\n", err.message, err.code);
    if (rc == 0 && d.counts)
        printf("containers %zu\nstates %zu\nvariables %zu\nlinks %zu\nevents %zu\n",
               d.n[ARI_NATURE_CONTAINER], d.n[ARI_NATURE_STATE], d.n[ARI_NATURE_VARIABLE],
               d.n[ARI_NATURE_LINK], d.n[ARI_NATURE_EVENT]);
    fflush(stdout);
    ari_strmap_foreach(d.type_names, free_name, NULL);
    ari_strmap_free(d.type_names);
    for (size_t i = 0; i < d.ncont; i++) {
        free(d.list[i]->name);
        free(d.list[i]->type);
        free(d.list[i]->parent);
        free(d.list[i]);
    }
    free(d.list);
    ari_strmap_free(d.conts);
    return rc == 0 ? 0 : 1;
}
