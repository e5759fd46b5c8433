/* pg_backend.c: the store's PostgreSQL backend over libpq: connections,
 * statements (prepared on the server at their first step, under a name per
 * statement), parameters, rows and errors, behind store_stmt.h's calls.
 *
 * A statement's rows arrive whole at its first step (PQexecPrepared), so
 * that the store may run other statements on the same connection while it
 * reads them, as it does with SQLite; the queries that would return a
 * trace's millions of rows aggregate in SQL instead. A statement marked
 * streamed (ari_pg_stream) gets its rows one at a time instead (libpq's
 * single-row mode): the daemon holds one row of it, not the whole result,
 * but no other statement may run on the connection until it is read to
 * its end or reset. Parameters travel as
 * text (doubles with 17 digits, which round-trip), blobs as bytes; rows
 * come back binary. Statements run by ari_pg_exec are PostgreSQL's own and
 * are not translated. The session prints doubles with 15 significant digits
 * (extra_float_digits = 0), as SQLite does in the JSON and text that the
 * queries build, so that both backends give the same documents. The
 * dialect of the shared SQL text is translated by pg_dialect.c.
 *
 * A connection that breaks (the server restarted, a failover, an idle
 * connection cut by a firewall) is opened again at the next call: the
 * statements prepared on the old session are prepared again at their next
 * step (each remembers the session it was prepared in), and the session's
 * settings are made again. A read that fails because the connection broke
 * outside a transaction is run once more on the new one. A connection that
 * broke inside a transaction refuses every statement until the store rolls
 * back (ari_pg_in_transaction says it is in one): the transaction's work
 * is lost, and a caller must not carry on as if the rest committed. */
#include "store/pg_backend.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/pg_dialect.h"

/* Type OIDs of pg_type.dat, stable across releases. */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_TEXT = 25,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_NUMERIC = 1700,
};

struct ari_pg_conn {
    PGconn *conn;
    int errcode;          /* of the last failure: ARI_BUSY, ARI_NOMEM or ARI_ERROR */
    char errmsg[512];
    int64_t changes;      /* rows changed by the last command */
    unsigned long names;  /* server-side statement names drawn: s1, s2, ... */
    unsigned long session;/* sessions opened: 1, then one more per reconnection */
    int in_tx;            /* a transaction was open after the last call */
    int lost_tx;          /* the connection broke inside a transaction: refuse until ROLLBACK */
    int lock_timeout_ms;  /* the session's lock_timeout, made again on a new session */
};

/* One parameter's value as bound: text, or bytes for a blob. */
typedef struct pg_param {
    char *value;          /* NULL binds SQL NULL */
    int length;
    int binary;
    unsigned type;        /* OID, 0 lets the server infer it */
} pg_param;

struct ari_pg_stmt {
    ari_pg_conn *c;
    char *sql;            /* translated: $N parameters, PostgreSQL's dialect */
    int nparams;
    pg_param *params;
    char name[32];        /* the prepared statement's, "" until prepared */
    unsigned long session;/* the connection's session it was prepared in */
    unsigned *types;      /* the parameter types it was prepared with */
    PGresult *res;        /* the rows of the current execution */
    int row, nrows;       /* row -1 before the first step */
    int stream;           /* rows one at a time (ari_pg_stream) */
    int streaming;        /* a streamed execution has rows still to come */
    char **texts;         /* numbers of the current row read as text, per column */
};

static int fail(ari_pg_conn *c, int code, const char *fmt, const char *a, const char *b)
{
    c->errcode = code;
    snprintf(c->errmsg, sizeof c->errmsg, fmt, a, b);
    size_t n = strlen(c->errmsg);
    while (n && (c->errmsg[n - 1] == '\n' || c->errmsg[n - 1] == ' '))
        c->errmsg[--n] = '\0';
    return code;
}

/* The code of a failed result: lock and statement timeouts, serialization
 * failures and deadlocks are worth a retry (ARI_BUSY), like SQLite's busy;
 * a connection that fails (class 08: postgres_fdw's to a shard that is
 * down, "could not connect to server") is ARI_UNAVAILABLE. */
static int result_code(const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (!state)
        return ARI_ERROR;
    static const char *const busy[] = {"55P03", "40001", "40P01", "57014"};
    for (size_t i = 0; i < sizeof busy / sizeof busy[0]; i++)
        if (strcmp(state, busy[i]) == 0)
            return ARI_BUSY;
    if (strncmp(state, "08", 2) == 0)
        return ARI_UNAVAILABLE;
    return strcmp(state, "53200") == 0 ? ARI_NOMEM : ARI_ERROR;
}

static int fail_result(ari_pg_conn *c, PGresult *res)
{
    const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(c->conn);
    return fail(c, result_code(res), "%s%s", msg && *msg ? msg : "PostgreSQL error", "");
}

void *ari_pg_conn_handle(ari_pg_conn *c)
{
    return c->conn;
}

int ari_pg_conn_fail(ari_pg_conn *c, int code, const char *message)
{
    return fail(c, code, "%s%s", message && *message ? message : "PostgreSQL error", "");
}

int ari_pg_is_url(const char *db)
{
    return db && (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0);
}

/* Runs sql on the session as it is (no reconnection). */
static int run(ari_pg_conn *c, const char *sql)
{
    PGresult *res = PQexec(c->conn, sql);
    ExecStatusType status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = ARI_OK;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        c->changes = atoll(PQcmdTuples(res));
    else
        rc = fail_result(c, res);
    PQclear(res);
    return rc;
}

/* The session's settings. Quiet notices (CREATE ... IF NOT EXISTS says it
 * skipped), UTC, doubles printed in text with 15 significant digits, like
 * SQLite, and every execution planned for its parameters: a generic plan
 * keeps every partition of a table (a trace each) and locks them all, so a
 * trace's partition being attached would stall reads of other traces. No
 * JIT: the analyses' statements carry large expressions that it compiles
 * for longer than it saves (the Gantt's aggregation of a whole 1.1 M-task
 * trace: 4.5 s with it, 2.0 s without; the super graph's decoding of
 * values: 4.7 s against 0.4 s). */
static int session_setup(ari_pg_conn *c)
{
    char sql[320];
    snprintf(sql, sizeof sql,
             "SET client_min_messages = warning; SET TIME ZONE 'UTC'; SET extra_float_digits = 0;"
             " SET plan_cache_mode = force_custom_plan; SET jit = off%s",
             c->lock_timeout_ms > 0 ? "; SET lock_timeout = " : "");
    if (c->lock_timeout_ms > 0)
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%d", c->lock_timeout_ms);
    return run(c, sql);
}

/* Remembers whether a transaction is open after a call, while the
 * connection can say. */
static void note_transaction(ari_pg_conn *c)
{
    if (PQstatus(c->conn) != CONNECTION_OK)
        return;
    PGTransactionStatusType t = PQtransactionStatus(c->conn);
    c->in_tx = t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

/* Opens the connection again if it broke (a new session: the statements
 * are prepared again, the settings made again); a transaction it was in is
 * lost (lost_tx). ARI_OK when the connection is usable. */
static int usable(ari_pg_conn *c)
{
    if (PQstatus(c->conn) == CONNECTION_OK)
        return ARI_OK;
    if (c->in_tx)
        c->lost_tx = 1;
    c->in_tx = 0;
    PQreset(c->conn);
    if (PQstatus(c->conn) != CONNECTION_OK)
        return fail(c, ARI_ERROR, "the connection to PostgreSQL broke and cannot be opened again: %s%s",
                    PQerrorMessage(c->conn), "");
    c->session++;
    return session_setup(c);
}

/* A statement refused while a transaction lost with its connection has not
 * been rolled back. */
static int refuse_lost(ari_pg_conn *c)
{
    return fail(c, ARI_ERROR, "%s%s",
                "the connection to PostgreSQL broke during a transaction, whose work is lost; roll back", "");
}

ari_pg_conn *ari_pg_open(const char *url, ari_error *err)
{
    ari_pg_conn *c = calloc(1, sizeof *c);
    if (!c) {
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
        return NULL;
    }
    c->conn = PQconnectdb(url);
    if (!c->conn || PQstatus(c->conn) != CONNECTION_OK) {
        const char *why = c->conn ? PQerrorMessage(c->conn) : "out of memory";
        char msg[400];
        snprintf(msg, sizeof msg, "%s", why);
        size_t n = strlen(msg);
        while (n && msg[n - 1] == '\n')
            msg[--n] = '\0';
        ari_error_set(err, ARI_E_DB, "cannot connect to PostgreSQL: %s", msg);
        ari_pg_close(c);
        return NULL;
    }
    c->session = 1;
    if (session_setup(c) != ARI_OK) {
        ari_error_set(err, ARI_E_DB, "PostgreSQL session set-up: %s", c->errmsg);
        ari_pg_close(c);
        return NULL;
    }
    return c;
}

void ari_pg_close(ari_pg_conn *c)
{
    if (!c)
        return;
    PQfinish(c->conn);
    free(c);
}

int ari_pg_exec(ari_pg_conn *c, const char *sql)
{
    int rc = usable(c);
    if (rc != ARI_OK)
        return rc;
    if (c->lost_tx) {
        if (strncasecmp(sql, "ROLLBACK", 8) != 0)
            return refuse_lost(c);
        c->lost_tx = 0; /* the new session has no transaction to roll back */
        return ARI_OK;
    }
    rc = run(c, sql);
    note_transaction(c);
    return rc;
}

int ari_pg_errcode(const ari_pg_conn *c)
{
    return c->errcode;
}

const char *ari_pg_errmsg(const ari_pg_conn *c)
{
    return c->errmsg;
}

int64_t ari_pg_last_insert_id(ari_pg_conn *c)
{
    PGresult *res = PQexec(c->conn, "SELECT lastval()");
    int64_t id = res && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
                     ? atoll(PQgetvalue(res, 0, 0))
                     : 0;
    PQclear(res);
    return id;
}

int64_t ari_pg_changes(const ari_pg_conn *c)
{
    return c->changes;
}

int ari_pg_in_transaction(const ari_pg_conn *c)
{
    if (c->lost_tx)
        return 1;
    PGTransactionStatusType t = PQtransactionStatus(c->conn);
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

void ari_pg_set_busy_timeout(ari_pg_conn *c, int ms)
{
    char sql[64];
    c->lock_timeout_ms = ms > 0 ? ms : 0;
    snprintf(sql, sizeof sql, "SET lock_timeout = %d", c->lock_timeout_ms);
    ari_pg_exec(c, sql);
}

/* ---- statements ---- */

ari_pg_stmt *ari_pg_prepare(ari_pg_conn *c, const char *sql)
{
    ari_pg_stmt *st = calloc(1, sizeof *st);
    if (!st) {
        fail(c, ARI_NOMEM, "%s%s", "out of memory", "");
        return NULL;
    }
    st->c = c;
    st->row = -1;
    st->sql = ari_pg_translate(sql, &st->nparams);
    st->params = st->nparams ? calloc((size_t)st->nparams, sizeof *st->params) : NULL;
    st->types = st->nparams ? calloc((size_t)st->nparams, sizeof *st->types) : NULL;
    if (!st->sql || (st->nparams && (!st->params || !st->types))) {
        fail(c, ARI_NOMEM, "%s%s", "out of memory", "");
        ari_pg_finalize(st);
        return NULL;
    }
    return st;
}

static void clear_texts(ari_pg_stmt *st)
{
    if (!st->texts)
        return;
    int n = st->res ? PQnfields(st->res) : 0;
    for (int i = 0; i < n; i++)
        free(st->texts[i]);
    free(st->texts);
    st->texts = NULL;
}

/* Reads what a streamed execution still has to send, so that the
 * connection takes statements again. */
static void drain(ari_pg_stmt *st)
{
    PGresult *res;
    while ((res = PQgetResult(st->c->conn)))
        PQclear(res);
    st->streaming = 0;
    note_transaction(st->c);
}

void ari_pg_reset(ari_pg_stmt *st)
{
    clear_texts(st);
    PQclear(st->res);
    st->res = NULL;
    if (st->streaming)
        drain(st);
    st->row = -1;
    st->nrows = 0;
}

void ari_pg_clear_bindings(ari_pg_stmt *st)
{
    for (int i = 0; i < st->nparams; i++) {
        free(st->params[i].value);
        st->params[i] = (pg_param){0};
    }
}

void ari_pg_finalize(ari_pg_stmt *st)
{
    if (!st)
        return;
    ari_pg_reset(st);
    if (st->params)
        ari_pg_clear_bindings(st);
    if (st->name[0] && st->session == st->c->session && st->c->conn && PQstatus(st->c->conn) == CONNECTION_OK) {
        char sql[64];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
        PQclear(PQexec(st->c->conn, sql));
    }
    free(st->params);
    free(st->types);
    free(st->sql);
    free(st);
}

/* Parameter i (from 1) set to a copy of n bytes at p. */
static int bind(ari_pg_stmt *st, int i, const void *p, int n, int binary, unsigned type)
{
    if (i < 1 || i > st->nparams)
        return fail(st->c, ARI_ERROR, "%s%s", "bind: parameter index out of range", "");
    pg_param *prm = &st->params[i - 1];
    char *copy = NULL;
    if (p) {
        copy = malloc((size_t)n + 1);
        if (!copy)
            return fail(st->c, ARI_NOMEM, "%s%s", "out of memory", "");
        memcpy(copy, p, (size_t)n);
        copy[n] = '\0';
    }
    free(prm->value);
    *prm = (pg_param){.value = copy, .length = n, .binary = binary, .type = p ? type : 0};
    return ARI_OK;
}

int ari_pg_bind_int64(ari_pg_stmt *st, int i, int64_t v)
{
    char text[24];
    int n = snprintf(text, sizeof text, "%lld", (long long)v);
    return bind(st, i, text, n, 0, OID_INT8);
}

int ari_pg_bind_double(ari_pg_stmt *st, int i, double v)
{
    char text[32];
    int n = isnan(v) ? snprintf(text, sizeof text, "NaN")
            : isinf(v) ? snprintf(text, sizeof text, v > 0 ? "Infinity" : "-Infinity")
                       : snprintf(text, sizeof text, "%.17g", v);
    return bind(st, i, text, n, 0, OID_FLOAT8);
}

int ari_pg_bind_text(ari_pg_stmt *st, int i, const char *p, int n)
{
    if (!p)
        return ari_pg_bind_null(st, i);
    size_t len = n < 0 ? strlen(p) : (size_t)n;
    if (len > 0x7fffffff || memchr(p, '\0', len))
        return fail(st->c, ARI_ERROR, "%s%s", "bind: text longer than 2 GiB or with a NUL byte", "");
    return bind(st, i, p, (int)len, 0, OID_TEXT);
}

int ari_pg_bind_blob(ari_pg_stmt *st, int i, const void *p, int64_t n)
{
    if (n < 0 || n > 0x7fffffff)
        return fail(st->c, ARI_ERROR, "%s%s", "bind: blob larger than 2 GiB", "");
    return bind(st, i, p ? p : "", (int)n, 1, OID_BYTEA);
}

int ari_pg_bind_null(ari_pg_stmt *st, int i)
{
    return bind(st, i, NULL, 0, 0, 0);
}

/* 1 when the bound types agree with those the statement was prepared
 * with (a NULL agrees with anything). */
static int same_types(const ari_pg_stmt *st)
{
    for (int i = 0; i < st->nparams; i++)
        if (st->params[i].value && st->params[i].type != st->types[i])
            return 0;
    return 1;
}

static int indeterminate(const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return state && (strcmp(state, "42P18") == 0 || strcmp(state, "42P08") == 0);
}

/* A parameter bound NULL where nothing in the statement says its type
 * (`?3 IS NULL OR start < ?3`) is given one, the next of these when the
 * statement then finds no operator for it. */
static const unsigned guesses[] = {OID_TEXT, OID_FLOAT8, OID_INT8};

/* "operator does not exist", "function does not exist". */
static int mistyped(const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return state && strcmp(state, "42883") == 0;
}

/* The parameter the server could not type ("... of parameter $N"), if
 * it is one still untyped, else 0. */
static int untyped_parameter(const PGresult *res, const ari_pg_stmt *st)
{
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char *at = msg ? strstr(msg, "parameter $") : NULL;
    int n = at ? atoi(at + 11) : 0;
    return n >= 1 && n <= st->nparams && !st->types[n - 1] ? n : 0;
}

/* Prepares with the bound values' types; a parameter bound NULL has no
 * type, which the server infers from its use, except where nothing says
 * (`?1 IS NULL OR kind = ?1` with ?1 NULL): then that parameter is
 * guessed (guesses[]), one at a time as the server names them. */
static int prepare_on_server(ari_pg_stmt *st)
{
    snprintf(st->name, sizeof st->name, "s%lu", ++st->c->names);
    st->session = st->c->session;
    for (int i = 0; i < st->nparams; i++)
        st->types[i] = st->params[i].type;
    PGresult *res = PQprepare(st->c->conn, st->name, st->sql, st->nparams, st->types);
    int guessed = 0, guess = 0; /* the parameter typed by a guess, and which guess */
    for (int tries = 0; tries < 3 * st->nparams; tries++) {
        int n = indeterminate(res) ? untyped_parameter(res, st) : 0;
        if (n > 0) {
            guessed = n, guess = 0;
        } else if (guessed && mistyped(res) && guess + 1 < (int)(sizeof guesses / sizeof guesses[0])) {
            guess++;
        } else {
            break;
        }
        PQclear(res);
        st->types[guessed - 1] = guesses[guess];
        res = PQprepare(st->c->conn, st->name, st->sql, st->nparams, st->types);
    }
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;
    int rc = ok ? ARI_OK : fail_result(st->c, res);
    PQclear(res);
    if (!ok)
        st->name[0] = '\0';
    return rc;
}

/* 1 when the statement is prepared on this session (prepared now if it
 * was not), 0 when the server refused (the connection's error set). */
static int prepared(ari_pg_stmt *st)
{
    return (st->name[0] && st->session == st->c->session) || prepare_on_server(st) == ARI_OK;
}

/* The statement's bindings as libpq takes them. */
static void param_arrays(const ari_pg_stmt *st, const char **values, int *lengths, int *formats, unsigned *types)
{
    for (int i = 0; i < st->nparams; i++) {
        values[i] = st->params[i].value;
        lengths[i] = st->params[i].length;
        formats[i] = st->params[i].binary;
        types[i] = st->params[i].value ? st->params[i].type : st->types[i];
    }
}

/* Runs the statement with its bindings (prepared first): under its name
 * when the types are those it was prepared with, else once with these. */
static PGresult *execute(ari_pg_stmt *st)
{
    const char *values[st->nparams ? st->nparams : 1];
    int lengths[st->nparams ? st->nparams : 1], formats[st->nparams ? st->nparams : 1];
    unsigned types[st->nparams ? st->nparams : 1];
    param_arrays(st, values, lengths, formats, types);
    if (same_types(st))
        return PQexecPrepared(st->c->conn, st->name, st->nparams, values, lengths, formats, 1);
    return PQexecParams(st->c->conn, st->sql, st->nparams, types, values, lengths, formats, 1);
}

/* execute's streamed form: sends the statement in single-row mode.
 * ARI_OK, or an error code. */
static int send_streamed(ari_pg_stmt *st)
{
    if (!prepared(st))
        return st->c->errcode;
    const char *values[st->nparams ? st->nparams : 1];
    int lengths[st->nparams ? st->nparams : 1], formats[st->nparams ? st->nparams : 1];
    unsigned types[st->nparams ? st->nparams : 1];
    param_arrays(st, values, lengths, formats, types);
    int sent = same_types(st)
                   ? PQsendQueryPrepared(st->c->conn, st->name, st->nparams, values, lengths, formats, 1)
                   : PQsendQueryParams(st->c->conn, st->sql, st->nparams, types, values, lengths, formats, 1);
    if (!sent)
        return fail_result(st->c, NULL);
    st->streaming = 1;
    if (!PQsetSingleRowMode(st->c->conn)) {
        drain(st);
        return fail(st->c, ARI_ERROR, "%s%s", "PostgreSQL refused single-row mode", "");
    }
    return ARI_OK;
}

/* A streamed statement's next row: ARI_ROW (the row is st->res's only
 * one), ARI_DONE, or an error code (the rest drained). */
static int next_streamed(ari_pg_stmt *st)
{
    clear_texts(st);
    PQclear(st->res);
    st->res = PQgetResult(st->c->conn);
    ExecStatusType status = st->res ? PQresultStatus(st->res) : PGRES_FATAL_ERROR;
    if (status == PGRES_SINGLE_TUPLE) {
        st->row = 0;
        st->nrows = 1;
        return ARI_ROW;
    }
    int rc = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK ? ARI_DONE : fail_result(st->c, st->res);
    PQclear(st->res);
    st->res = NULL;
    drain(st);
    st->row = st->nrows = 0;
    return rc;
}

void ari_pg_stream(ari_pg_stmt *st)
{
    st->stream = 1;
}

/* 1 for a statement that only reads (run again after a reconnection). */
static int reads_only(const char *sql)
{
    while (*sql == ' ' || *sql == '\n' || *sql == '(')
        sql++;
    return strncasecmp(sql, "SELECT", 6) == 0;
}

/* Prepares the statement on this session if it is not, and runs it. */
static PGresult *prepare_and_execute(ari_pg_stmt *st)
{
    return prepared(st) ? execute(st) : NULL;
}

int ari_pg_step(ari_pg_stmt *st)
{
    if (st->streaming || (st->row < 0 && st->stream)) {
        if (!st->streaming) {
            ari_pg_conn *c = st->c;
            if (usable(c) != ARI_OK)
                return c->errcode;
            if (c->lost_tx)
                return refuse_lost(c);
            int rc = send_streamed(st);
            if (rc != ARI_OK)
                return rc;
        }
        return next_streamed(st);
    }
    if (st->row < 0) {
        ari_pg_conn *c = st->c;
        if (usable(c) != ARI_OK)
            return c->errcode;
        if (c->lost_tx)
            return refuse_lost(c);
        int was_in_tx = c->in_tx;
        PGresult *res = prepare_and_execute(st);
        if (!res && st->name[0] == '\0' && PQstatus(c->conn) == CONNECTION_OK)
            return c->errcode; /* the server refused to prepare it */
        ExecStatusType status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK && PQstatus(c->conn) == CONNECTION_BAD &&
            !was_in_tx && reads_only(st->sql)) {
            PQclear(res); /* the connection broke under a read: once more on a new one */
            if (usable(c) != ARI_OK)
                return c->errcode;
            res = prepare_and_execute(st);
            status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
        }
        note_transaction(c);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            int rc = res || PQstatus(c->conn) == CONNECTION_BAD ? fail_result(c, res) : c->errcode;
            PQclear(res);
            return rc;
        }
        st->c->changes = atoll(PQcmdTuples(res));
        st->res = res;
        st->nrows = PQntuples(res);
    }
    clear_texts(st);
    if (st->row + 1 >= st->nrows) {
        st->row = st->nrows;
        return ARI_DONE;
    }
    st->row++;
    return ARI_ROW;
}

/* ---- columns of the current row ----
 * Rows arrive in binary: integers and doubles exactly as stored, whatever
 * extra_float_digits says (which the SQL's own number formatting, such as
 * JSON built by the query, follows). */

static int has_value(const ari_pg_stmt *st, int i)
{
    return st->res && st->row >= 0 && st->row < st->nrows && i >= 0 && i < PQnfields(st->res) &&
           !PQgetisnull(st->res, st->row, i);
}

static uint64_t big_endian(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int k = 0; k < n; k++)
        v = v << 8 | p[k];
    return v;
}

static double as_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* A numeric's value: ARI_INTEGER in *iv when it has no fraction and fits,
 * else ARI_FLOAT in *dv. Binary layout (numeric_send): ndigits, weight,
 * sign, dscale as 16-bit integers, then ndigits base-10000 digits. */
static int numeric_value(const unsigned char *p, int len, int64_t *iv, double *dv)
{
    if (len < 8)
        return *dv = 0.0, ARI_FLOAT;
    int ndigits = (int16_t)big_endian(p, 2), weight = (int16_t)big_endian(p + 2, 2);
    unsigned sign = (unsigned)big_endian(p + 4, 2);
    int dscale = (int16_t)big_endian(p + 6, 2);
    if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000) {
        *dv = sign == 0xC000 ? NAN : sign == 0xD000 ? INFINITY : -INFINITY;
        return ARI_FLOAT;
    }
    if (ndigits < 0 || len < 8 + 2 * ndigits)
        return *dv = 0.0, ARI_FLOAT;
    double d = 0.0;
    __int128 v = 0;
    int exact = dscale == 0 && weight < 5;
    for (int k = 0; k < ndigits; k++) {
        int digit = (int)big_endian(p + 8 + 2 * k, 2);
        d += digit * pow(10000.0, weight - k);
        if (exact && weight - k >= 0)
            v = v * 10000 + digit;
    }
    for (int k = ndigits; exact && k <= weight; k++)
        v *= 10000;
    if (sign == 0x4000)
        d = -d, v = -v;
    if (exact && v >= INT64_MIN && v <= INT64_MAX) {
        *iv = (int64_t)v;
        return ARI_INTEGER;
    }
    *dv = d;
    return ARI_FLOAT;
}

/* The column's type and value: ARI_INTEGER (*iv), ARI_FLOAT (*dv),
 * ARI_TEXT, ARI_BLOB or ARI_NULL. */
static int value(ari_pg_stmt *st, int i, int64_t *iv, double *dv)
{
    if (!has_value(st, i))
        return ARI_NULL;
    const unsigned char *p = (const unsigned char *)PQgetvalue(st->res, st->row, i);
    int len = PQgetlength(st->res, st->row, i);
    switch (PQftype(st->res, i)) {
    case OID_BOOL:
        return *iv = len > 0 && p[0], ARI_INTEGER;
    case OID_INT2:
        return *iv = (int16_t)big_endian(p, 2), ARI_INTEGER;
    case OID_INT4:
        return *iv = (int32_t)big_endian(p, 4), ARI_INTEGER;
    case OID_INT8:
        return *iv = (int64_t)big_endian(p, 8), ARI_INTEGER;
    case OID_FLOAT4: {
        uint32_t bits = (uint32_t)big_endian(p, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        return *dv = f, ARI_FLOAT;
    }
    case OID_FLOAT8:
        return *dv = as_double(big_endian(p, 8)), ARI_FLOAT;
    case OID_NUMERIC:
        return numeric_value(p, len, iv, dv);
    case OID_BYTEA:
        return ARI_BLOB;
    default:
        return ARI_TEXT;
    }
}

int ari_pg_col_count(ari_pg_stmt *st)
{
    return st->res ? PQnfields(st->res) : 0;
}

int ari_pg_col_type(ari_pg_stmt *st, int i)
{
    int64_t iv;
    double dv;
    return value(st, i, &iv, &dv);
}

/* Text read as a number, as SQLite reads it: its leading number, or 0. */
static double text_number(ari_pg_stmt *st, int i)
{
    return strtod(PQgetvalue(st->res, st->row, i), NULL);
}

int64_t ari_pg_col_int64(ari_pg_stmt *st, int i)
{
    int64_t iv = 0;
    double dv = 0.0;
    switch (value(st, i, &iv, &dv)) {
    case ARI_INTEGER:
        return iv;
    case ARI_FLOAT:
        return dv >= 9.2233720368547758e18 ? INT64_MAX : dv <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)dv;
    case ARI_TEXT:
        return strtoll(PQgetvalue(st->res, st->row, i), NULL, 10);
    default:
        return 0;
    }
}

double ari_pg_col_double(ari_pg_stmt *st, int i)
{
    int64_t iv = 0;
    double dv = 0.0;
    switch (value(st, i, &iv, &dv)) {
    case ARI_INTEGER:
        return (double)iv;
    case ARI_FLOAT:
        return dv;
    case ARI_TEXT:
        return text_number(st, i);
    default:
        return 0.0;
    }
}

/* The text form of a number, as SQLite gives it: a real with 15
 * significant digits and a ".0" when it has no fraction. Kept until the
 * next step. */
static const unsigned char *number_text(ari_pg_stmt *st, int i, int type, int64_t iv, double dv)
{
    if (!st->texts && !(st->texts = calloc((size_t)PQnfields(st->res), sizeof *st->texts)))
        return NULL;
    if (!st->texts[i] && (st->texts[i] = malloc(40))) {
        if (type == ARI_INTEGER)
            snprintf(st->texts[i], 40, "%lld", (long long)iv);
        else if (isnan(dv) || isinf(dv))
            snprintf(st->texts[i], 40, "%s", isnan(dv) ? "NaN" : dv > 0 ? "Inf" : "-Inf");
        else {
            snprintf(st->texts[i], 40, "%.15g", dv);
            if (!strpbrk(st->texts[i], ".e"))
                strcat(st->texts[i], ".0");
        }
    }
    return (const unsigned char *)st->texts[i];
}

const unsigned char *ari_pg_col_text(ari_pg_stmt *st, int i)
{
    int64_t iv = 0;
    double dv = 0.0;
    int type = value(st, i, &iv, &dv);
    if (type == ARI_NULL)
        return NULL;
    if (type == ARI_TEXT || type == ARI_BLOB) /* libpq ends every value with a NUL */
        return (const unsigned char *)PQgetvalue(st->res, st->row, i);
    return number_text(st, i, type, iv, dv);
}

const void *ari_pg_col_blob(ari_pg_stmt *st, int i)
{
    if (!has_value(st, i))
        return NULL;
    int64_t iv = 0;
    double dv = 0.0;
    int type = value(st, i, &iv, &dv);
    if (type == ARI_INTEGER || type == ARI_FLOAT)
        return ari_pg_col_text(st, i);
    return PQgetvalue(st->res, st->row, i);
}

int ari_pg_col_bytes(ari_pg_stmt *st, int i)
{
    if (!has_value(st, i))
        return 0;
    int64_t iv = 0;
    double dv = 0.0;
    int type = value(st, i, &iv, &dv);
    if (type == ARI_INTEGER || type == ARI_FLOAT) {
        const unsigned char *text = ari_pg_col_text(st, i);
        return text ? (int)strlen((const char *)text) : 0;
    }
    return PQgetlength(st->res, st->row, i);
}
