/* nvsmi_csv.c: nvidia-smi sample CSV reader (see nvsmi_csv.h): a header
 * line names the columns, every further line is one sample time. */
#include "ingest/nvsmi_csv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/input.h"

#define MAX_COLS 128
#define MAX_GPU 65535 /* GPU indices are small; anything larger is a corrupt file */

/* Splits a line on commas in place, trimming blanks; returns the count. */
static int split(char *line, char **cells, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *comma = strchr(p, ',');
        char *end = comma ? comma : p + strlen(p);
        char *last = end;
        while (last > p && (last[-1] == ' ' || last[-1] == '\t'))
            last--;
        *last = '\0';
        if (n < max)
            cells[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

/* "utilization.gpu [%]" -> "utilization.gpu"; "timestamp(ns)" kept. */
static void column_name(const char *cell, char *out, size_t size)
{
    size_t len = strcspn(cell, "[");
    while (len > 0 && cell[len - 1] == ' ')
        len--;
    snprintf(out, size, "%.*s", (int)len, cell);
}

/* A number with optional unit ("29 %", "387 MiB", "P8" -> 8). */
static int parse_value(const char *cell, double *out)
{
    if (cell[0] == 'P' && isdigit((unsigned char)cell[1]))
        cell++;
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || !isfinite(v))
        return -1;
    while (*end == ' ')
        end++;
    if (*end && !isalpha((unsigned char)*end) && *end != '%')
        return -1;
    *out = v;
    return 0;
}

/* A GPU index: a whole number from 0 to MAX_GPU, checked before it is
 * converted (a huge or fractional double cast to int is undefined). */
static int parse_gpu(const char *cell, int *gpu)
{
    double v;
    if (parse_value(cell, &v) < 0 || !(v >= 0 && v <= MAX_GPU) || v != floor(v))
        return -1;
    *gpu = (int)v;
    return 0;
}

/* Nanoseconds since the epoch, or "YYYY/MM/DD HH:MM:SS.fff" (UTC); µs. */
static int parse_time(const char *cell, int ns_column, double *us)
{
    int y, mo, d, h, mi;
    double s;
    if (sscanf(cell, "%d/%d/%d %d:%d:%lf", &y, &mo, &d, &h, &mi, &s) == 6) {
        if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
            !(s >= 0 && s < 61))
            return -1;
        struct tm tm = {0};
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
        tm.tm_hour = h;
        tm.tm_min = mi;
        *us = ((double)timegm(&tm) + s) * 1e6;
        return 0;
    }
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || *end || !isfinite(v))
        return -1;
    *us = ns_column || v > 1e17 ? v / 1000.0 : v; /* ns integers, else µs */
    return 0;
}

int ari_nvsmi_probe(const char *head, size_t n)
{
    size_t len = 0;
    while (len < n && head[len] != '\n')
        len++;
    return len >= 9 && strncmp(head, "timestamp", 9) == 0 && memchr(head, ',', len) != NULL;
}

typedef struct csv_cols {
    char names[MAX_COLS][64];
    int n, ts, gpu, ns;
} csv_cols;

static int read_header(char *line, csv_cols *c, const char *name, ari_error *err)
{
    char *cells[MAX_COLS];
    c->n = split(line, cells, MAX_COLS);
    c->ts = c->gpu = -1;
    for (int i = 0; i < c->n; i++) {
        column_name(cells[i], c->names[i], sizeof c->names[i]);
        if (strncmp(c->names[i], "timestamp", 9) == 0 && c->ts < 0) {
            c->ts = i;
            c->ns = strstr(c->names[i], "(ns)") != NULL;
        } else if (strcmp(c->names[i], "index") == 0 || strcmp(c->names[i], "gpu") == 0) {
            c->gpu = i;
        }
    }
    if (c->ts < 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT,
                             "%s:1: no timestamp column: not an nvidia-smi sample CSV (summary tables are not samples)",
                             name);
    return 0;
}

static int read_row(char *line, const csv_cols *c, const ari_nvsmi_sink *k, const char *name, uint64_t lineno,
                    ari_error *err)
{
    char *cells[MAX_COLS];
    int n = split(line, cells, MAX_COLS);
    if (n == 1 && cells[0][0] == '\0')
        return 0; /* blank line */
    double ts;
    int gpu = 0;
    if (n <= c->ts || parse_time(cells[c->ts], c->ns, &ts) < 0)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: bad timestamp", name, (unsigned long long)lineno);
    if (c->gpu >= 0 && (n <= c->gpu || parse_gpu(cells[c->gpu], &gpu) < 0))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s:%llu: bad GPU index '%.40s' (a whole number from 0 to %d)",
                             name, (unsigned long long)lineno, n > c->gpu ? cells[c->gpu] : "", MAX_GPU);
    for (int i = 0; i < n && i < c->n; i++) {
        double v;
        if (i == c->ts || i == c->gpu || parse_value(cells[i], &v) < 0)
            continue;
        int rc = k->sample(k->ctx, c->names[i], gpu, ts, v);
        if (rc)
            return rc;
    }
    return 0;
}

int ari_nvsmi_read(const char *path, const char *name, const ari_nvsmi_sink *k, ari_error *err)
{
    ari_input *in = ari_input_open(path, name, err);
    if (!in)
        return -1;
    csv_cols *c = calloc(1, sizeof *c);
    int rc = c ? 0 : ari_error_set(err, ARI_E_NOMEM, "out of memory");
    size_t len;
    char *line;
    int header = 1;
    while (rc == 0 && (line = ari_input_getline(in, &len, err)) != NULL) {
        if (header) {
            rc = read_header(line, c, name, err);
            header = 0;
        } else {
            rc = read_row(line, c, k, name, ari_input_lineno(in), err);
        }
    }
    if (rc == 0 && ari_input_failed(in))
        rc = -1;
    if (rc == 0 && header)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty CSV", name);
    free(c);
    ari_input_close(in);
    return rc ? -1 : 0;
}
