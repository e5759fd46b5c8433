/* gantt_summary_bench.c: times the Gantt's summaries (issue 20;
 * store/gantt_summaries.h) on an imported task trace, beside the raw
 * paths they replace, and measures their error on the same windows.
 *
 *   gantt_summary_bench DB TRACE_ID [WIDTH] [--build | --build-only]
 *
 * --build (re)builds the trace's summaries first, in one transaction, and
 * prints the time (the import's added cost; a database imported before
 * sql/020 gets its summaries so); --build-only stops there. Then for windows of 1/1, 1/10 and 1/100
 * of the task extent, at its start and at its end, on WIDTH pixels
 * (default 1920): every worker's runtime states raw (ari_tq_worker_states
 * + ari_gantt_state_times, what GET /gantt?states=true does) and from the
 * summaries, and its pixels raw (the packed rows, clamped, through
 * ari_gantt_render_row) and from the summaries; per window the total
 * milliseconds of each and the largest difference of a state's share of
 * the window and of a pixel's type share. Rows the summaries decline
 * (return 0) count as raw in the summary column.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gantt_aggregation.h"
#include "store/analysis_cache.h"
#include "store/gantt_rows.h"
#include "store/gantt_summaries.h"
#include "store/store.h"
#include "store/task_queries.h"
#include "util/clock.h"

static void die(const char *what, const ari_error *err)
{
    fprintf(stderr, "gantt_summary_bench: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

typedef struct bench {
    ari_store *s;
    int64_t id;
    ari_tq_meta *meta;
    ari_row_tasks *rows;
    int width;
} bench;

static void clamp_row(ari_row_tasks *r)
{
    for (int64_t i = 0; i < r->ntasks; i++) {
        if (r->end[i] < r->start[i])
            r->end[i] = r->start[i];
        if (i > 0 && r->end[i - 1] > r->start[i])
            r->end[i - 1] = r->start[i];
    }
}

/* Raw state times of a worker, by name into names/time (grown). */
static double state_error(bench *b, int64_t worker, double t0, double t1, const ari_tq_states *st,
                          const double *exact, const ari_gantt_state_totals *tot)
{
    (void)b;
    (void)worker;
    double worst = 0;
    for (int v = 0; v < st->nvalues; v++) {
        double a = 0;
        for (int u = 0; u < tot->nvalues; u++)
            if (strcmp(tot->names[u], st->names[v]) == 0)
                a = tot->time[u];
        worst = fmax(worst, fabs(a - exact[v]) / (t1 - t0));
    }
    return worst;
}

static double pixel_error(const ari_gantt_result *a, const ari_gantt_result *x, int width, int ntypes)
{
    double *da = calloc((size_t)width * (size_t)ntypes, sizeof *da),
           *dx = calloc((size_t)width * (size_t)ntypes, sizeof *dx);
    if (!da || !dx)
        die("out of memory", NULL);
    for (int64_t i = 0; a->mode == ARI_GANTT_PIXELS && i < a->ncells; i++)
        da[a->cells[i].pixel * ntypes + a->cells[i].type] += a->cells[i].share;
    for (int64_t i = 0; x->mode == ARI_GANTT_PIXELS && i < x->ncells; i++)
        dx[x->cells[i].pixel * ntypes + x->cells[i].type] += x->cells[i].share;
    double worst = 0;
    for (int i = 0; i < width * ntypes; i++)
        worst = fmax(worst, fabs(da[i] - dx[i]));
    free(da);
    free(dx);
    return worst;
}

static void window(bench *b, const char *label, double t0, double t1)
{
    ari_error err = {0};
    double raw_states = 0, sum_states = 0, raw_px = 0, sum_px = 0, err_states = 0, err_px = 0;
    int answered_states = 0, answered_px = 0;
    for (int i = 0; i < b->meta->nworkers; i++) {
        int64_t w = b->meta->workers[i].id;
        double c0 = ari_now();
        ari_tq_states st;
        if (ari_tq_worker_states(b->s, b->id, b->meta, w, t0, t1, &st, &err) < 0)
            die("raw states", &err);
        double *exact = calloc((size_t)st.nvalues + 1, sizeof *exact);
        if (!exact || ari_gantt_state_times(st.states, st.n, t0, t1, st.nvalues, exact, &err) < 0)
            die("state times", &err);
        double c1 = ari_now();
        ari_gantt_state_totals tot;
        int rc = ari_gantt_summary_states(b->s, b->id, b->meta, w, t0, t1, &tot, &err);
        if (rc < 0)
            die("summary states", &err);
        double c2 = ari_now();
        raw_states += c1 - c0;
        sum_states += rc == 1 ? c2 - c1 : c2 - c0;
        if (rc == 1) {
            answered_states++;
            err_states = fmax(err_states, state_error(b, w, t0, t1, &st, exact, &tot));
            ari_gantt_state_totals_free(&tot);
        }
        free(exact);
        ari_tq_states_free(&st);

        const ari_row_tasks *r = &b->rows[i];
        ari_gantt_row in = {r->ntasks, r->start, r->end, r->type, b->meta->ntypes};
        ari_gantt_result x, a;
        c0 = ari_now();
        if (ari_gantt_render_row(&in, t0, t1, b->width, 0, &x, &err) < 0)
            die("render", &err);
        c1 = ari_now();
        rc = ari_gantt_summary_pixels(b->s, b->id, b->meta, w, t0, t1, b->width, &a, &err);
        if (rc < 0)
            die("summary pixels", &err);
        c2 = ari_now();
        raw_px += c1 - c0;
        sum_px += rc == 1 ? c2 - c1 : c2 - c0;
        if (rc == 1) {
            answered_px++;
            err_px = fmax(err_px, pixel_error(&a, &x, b->width, b->meta->ntypes));
            ari_gantt_result_free(&a);
        }
        ari_gantt_result_free(&x);
    }
    printf("%-14s states raw %8.1f ms  summary %8.1f ms (%2d/%d rows, max share error %.2e)   "
           "pixels raw %7.1f ms  summary %7.1f ms (%2d/%d rows, max error %.2e)\n",
           label, raw_states * 1e3, sum_states * 1e3, answered_states, b->meta->nworkers, err_states,
           raw_px * 1e3, sum_px * 1e3, answered_px, b->meta->nworkers, err_px);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gantt_summary_bench DB TRACE_ID [WIDTH] [--build | --build-only]\n");
        return 2;
    }
    bench b = {.id = strtoll(argv[2], NULL, 10), .width = 1920};
    int build = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--build") == 0)
            build = 1;
        else if (strcmp(argv[i], "--build-only") == 0)
            build = 2;
        else
            b.width = atoi(argv[i]);
    }
    ari_error err = {0};
    if (!(b.s = ari_store_open(argv[1], &err)))
        die("open", &err);
    if (ari_tq_meta_get(b.s, b.id, &b.meta, &err) < 0)
        die("meta", &err);
    if (build) {
        double t = ari_now();
        if (ari_store_begin(b.s, &err) < 0 || ari_gantt_summaries_build(b.s, b.id, &err) < 0 ||
            ari_store_commit(b.s, &err) < 0)
            die("build", &err);
        printf("build: %.2f s (%d workers, %lld tasks)\n", ari_now() - t, b.meta->nworkers,
               (long long)b.meta->ntasks);
        if (build == 2) {
            ari_tq_meta_free(b.meta);
            ari_store_close(b.s);
            return 0;
        }
    }
    b.rows = calloc((size_t)b.meta->nworkers, sizeof *b.rows);
    if (!b.rows)
        die("out of memory", NULL);
    for (int i = 0; i < b.meta->nworkers; i++)
        b.rows[i].worker_id = b.meta->workers[i].id;
    if (ari_gantt_rows_read(b.s, b.id, b.meta, b.rows, &err) != 0)
        die("gantt rows", &err);
    for (int i = 0; i < b.meta->nworkers; i++)
        clamp_row(&b.rows[i]);
    double e0 = b.meta->extent_start, e1 = b.meta->extent_end;
    int zooms[] = {1, 10, 100};
    for (int z = 0; z < 3; z++) {
        char label[32];
        double len = (e1 - e0) / zooms[z];
        snprintf(label, sizeof label, "1/%d start", zooms[z]);
        window(&b, label, e0, e0 + len);
        if (zooms[z] > 1) {
            snprintf(label, sizeof label, "1/%d end", zooms[z]);
            window(&b, label, e1 - len, e1);
        }
    }
    for (int i = 0; i < b.meta->nworkers; i++)
        free(b.rows[i].start), free(b.rows[i].end), free(b.rows[i].type);
    free(b.rows);
    ari_tq_meta_free(b.meta);
    ari_store_close(b.s);
    return 0;
}
