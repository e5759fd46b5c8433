/* pg_copy.c: COPY ... FROM STDIN in text format (pg_copy.h). Rows are
 * written into a buffer sent to the server every 1 MiB; a value's
 * backslash, tab, newline and carriage return are escaped, a NULL is \N,
 * a blob is bytea's hex form. */
#include "store/pg_copy.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sbuf.h"

#define FLUSH_BYTES (1u << 20)

struct ari_pg_copy {
    ari_pg_conn *c;
    ari_sbuf buf;
    int fields; /* values in the current row */
    int failed;
};

ari_pg_copy *ari_pg_copy_begin(ari_pg_conn *c, const char *table, const char *columns)
{
    ari_pg_copy *cp = calloc(1, sizeof *cp);
    char *sql = NULL;
    if (!cp || asprintf(&sql, "COPY \"%s\" (%s) FROM STDIN", table, columns) < 0) {
        free(cp);
        ari_pg_conn_fail(c, ARI_NOMEM, "out of memory");
        return NULL;
    }
    PGresult *res = PQexec(ari_pg_conn_handle(c), sql);
    free(sql);
    if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
        ari_pg_conn_fail(c, ARI_ERROR, res ? PQresultErrorMessage(res) : "COPY did not start");
        PQclear(res);
        free(cp);
        return NULL;
    }
    PQclear(res);
    cp->c = c;
    return cp;
}

static void separate(ari_pg_copy *cp)
{
    if (cp->fields++)
        ari_sbuf_add_char(&cp->buf, '\t');
}

void ari_pg_copy_int(ari_pg_copy *cp, int64_t v)
{
    separate(cp);
    ari_sbuf_printf(&cp->buf, "%lld", (long long)v);
}

void ari_pg_copy_real(ari_pg_copy *cp, double v)
{
    separate(cp);
    if (isnan(v))
        ari_sbuf_add_str(&cp->buf, "NaN");
    else if (isinf(v))
        ari_sbuf_add_str(&cp->buf, v > 0 ? "Infinity" : "-Infinity");
    else
        ari_sbuf_printf(&cp->buf, "%.17g", v);
}

void ari_pg_copy_text(ari_pg_copy *cp, const char *s, size_t n)
{
    separate(cp);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *esc = s[i] == '\\' ? "\\\\" : s[i] == '\t' ? "\\t" : s[i] == '\n' ? "\\n" : s[i] == '\r' ? "\\r" : NULL;
        if (!esc)
            continue;
        ari_sbuf_add(&cp->buf, s + run, i - run);
        ari_sbuf_add_str(&cp->buf, esc);
        run = i + 1;
    }
    ari_sbuf_add(&cp->buf, s + run, n - run);
}

void ari_pg_copy_blob(ari_pg_copy *cp, const void *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = p;
    separate(cp);
    ari_sbuf_add_str(&cp->buf, "\\\\x");
    for (size_t i = 0; i < n; i++) {
        ari_sbuf_add_char(&cp->buf, hex[b[i] >> 4]);
        ari_sbuf_add_char(&cp->buf, hex[b[i] & 15]);
    }
}

void ari_pg_copy_null(ari_pg_copy *cp)
{
    separate(cp);
    ari_sbuf_add_str(&cp->buf, "\\N");
}

static int flush(ari_pg_copy *cp)
{
    if (ari_sbuf_failed(&cp->buf))
        return cp->failed = 1, ari_pg_conn_fail(cp->c, ARI_NOMEM, "out of memory");
    if (cp->buf.len && PQputCopyData(ari_pg_conn_handle(cp->c), ari_sbuf_text(&cp->buf), (int)cp->buf.len) != 1)
        return cp->failed = 1, ari_pg_conn_fail(cp->c, ARI_ERROR, PQerrorMessage(ari_pg_conn_handle(cp->c)));
    ari_sbuf_reset(&cp->buf);
    return ARI_OK;
}

int ari_pg_copy_row_end(ari_pg_copy *cp)
{
    if (cp->failed)
        return ARI_ERROR;
    ari_sbuf_add_char(&cp->buf, '\n');
    cp->fields = 0;
    return cp->buf.len >= FLUSH_BYTES ? flush(cp) : ARI_OK;
}

int ari_pg_copy_end(ari_pg_copy *cp, int ok, int64_t *rows)
{
    PGconn *conn = ari_pg_conn_handle(cp->c);
    int rc = ok && !cp->failed ? flush(cp) : ARI_ERROR;
    int sent = PQputCopyEnd(conn, rc == ARI_OK ? NULL : "abandoned by ariadned") == 1;
    PGresult *res;
    int loaded = 0;
    while ((res = PQgetResult(conn)) != NULL) {
        if (PQresultStatus(res) == PGRES_COMMAND_OK) {
            loaded = 1;
            if (rows)
                *rows = atoll(PQcmdTuples(res));
        } else if (rc == ARI_OK) {
            rc = ari_pg_conn_fail(cp->c, ARI_ERROR, PQresultErrorMessage(res));
        }
        PQclear(res);
    }
    if (rc == ARI_OK && (!sent || !loaded))
        rc = ari_pg_conn_fail(cp->c, ARI_ERROR, PQerrorMessage(conn));
    ari_sbuf_free(&cp->buf);
    free(cp);
    return rc;
}
