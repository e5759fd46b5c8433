/* pg_dialect.c: SQLite's dialect, as the store writes its shared SQL, in
 * PostgreSQL's (pg_dialect.h). The one place where the differences that
 * can be rewritten locally are rewritten; what cannot (a JSON document
 * updated in place, a bulk load) is written for each backend where it is
 * done, or is a function of sql/pg/functions.sql with SQLite's name.
 *
 * The text is read token by token, a parenthesised group at a time, so
 * that a call's arguments are known: string literals, quoted identifiers
 * and comments are copied as they are; `?N` becomes `$N`; words of the
 * table below are replaced; the calls of the second table are rewritten
 * around their translated arguments; `end` is quoted (the store writes
 * its keywords in capitals: `end` is the column, `END` closes a CASE); a
 * subquery in FROM or JOIN gets the alias PostgreSQL requires; INSERT OR
 * IGNORE becomes ON CONFLICT DO NOTHING; X GLOB 'pattern' becomes a
 * regular expression match; INDEXED BY hints are dropped. */
#include "store/pg_dialect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/sbuf.h"

/* SQLite's words and PostgreSQL's for the same thing. */
static const struct {
    const char *lite, *pg;
} words[] = {
    {"ifnull", "coalesce"},
    {"instr", "strpos"},
    {"json_object", "json_build_object"},
    {"json_array", "json_build_array"},
    {"REAL", "double precision"},
    {"BLOB", "bytea"},
    {"LIKE", "ILIKE"}, /* SQLite's LIKE ignores ASCII case */
};

typedef struct translator {
    ari_sbuf out;
    int highest;   /* the highest parameter number seen */
    int conflict;  /* the statement began INSERT OR IGNORE */
    int aliases;   /* subquery aliases drawn: _q1, _q2, ... */
} translator;

static void translate(translator *t, const char *p, const char *end);

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int word_is(const char *w, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(w, word, n) == 0;
}

/* The end of a quoted run starting at p (quote q, doubled to escape). */
static const char *skip_quoted(const char *p, const char *end, char q)
{
    for (p++; p < end; p++)
        if (*p == q) {
            if (p + 1 >= end || p[1] != q)
                return p + 1;
            p++;
        }
    return end;
}

static const char *skip_comment(const char *p, const char *end)
{
    if (p[0] == '-') {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        return e ? e : end;
    }
    for (p += 2; p + 1 < end; p++)
        if (p[0] == '*' && p[1] == '/')
            return p + 2;
    return end;
}

static int starts_comment(const char *p, const char *end)
{
    return p + 1 < end && ((p[0] == '-' && p[1] == '-') || (p[0] == '/' && p[1] == '*'));
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p;
}

/* The ')' matching the '(' at p, or end. */
static const char *matching(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        if (*p == '\'' || *p == '"') {
            p = skip_quoted(p, end, *p);
            continue;
        }
        if (starts_comment(p, end)) {
            p = skip_comment(p, end);
            continue;
        }
        if (*p == '(')
            depth++;
        else if (*p == ')' && --depth == 0)
            return p;
        p++;
    }
    return end;
}

/* Splits the arguments between open+1 and close at their top-level
 * commas: arg[i] = [from[i], to[i]). Returns the count (at most max). */
static int split_args(const char *open, const char *close, const char **from, const char **to, int max)
{
    int n = 0, depth = 0;
    const char *p = open + 1, *start = p;
    while (p < close) {
        if (*p == '\'' || *p == '"') {
            p = skip_quoted(p, close, *p);
            continue;
        }
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        else if (*p == ',' && depth == 0 && n < max - 1) {
            from[n] = start, to[n++] = p;
            start = p + 1;
        }
        p++;
    }
    if (skip_space(start, close) < close || n > 0)
        from[n] = start, to[n++] = close;
    return n;
}

/* The last character written that is not a space, or '\0'. */
static char last_char(const translator *t)
{
    for (size_t i = t->out.len; i > 0; i--)
        if (!isspace((unsigned char)t->out.p[i - 1]))
            return t->out.p[i - 1];
    return '\0';
}

static void emit(translator *t, const char *s)
{
    ari_sbuf_add_str(&t->out, s);
}

static void emit_arg(translator *t, const char *from, const char *to)
{
    translate(t, skip_space(from, to), to);
}

/* Rewrites the call name(args) when it has a PostgreSQL form; 0 if not. */
static int rewrite_call(translator *t, const char *name, size_t n, const char *open, const char *close)
{
    const char *from[16], *to[16];
    int argc = split_args(open, close, from, to, 16);
    if (word_is(name, n, "json_group_array") && argc == 1) {
        emit(t, "coalesce(json_agg(");
        emit_arg(t, from[0], to[0]);
        emit(t, "), '[]')");
    } else if (word_is(name, n, "json_group_object") && argc == 2) {
        emit(t, "coalesce(json_object_agg(");
        emit_arg(t, from[0], to[0]);
        emit(t, ",");
        emit_arg(t, from[1], to[1]);
        emit(t, "), '{}')");
    } else if (word_is(name, n, "group_concat") && (argc == 1 || argc == 2)) {
        emit(t, "string_agg((");
        emit_arg(t, from[0], to[0]);
        emit(t, ")::text, ");
        if (argc == 2)
            emit_arg(t, from[1], to[1]);
        else
            emit(t, "','");
        emit(t, ")");
    } else if (word_is(name, n, "total") && argc == 1) {
        emit(t, "coalesce(sum(");
        emit_arg(t, from[0], to[0]);
        emit(t, "), 0)::float8");
    } else if ((word_is(name, n, "min") || word_is(name, n, "max")) && argc >= 2) {
        emit(t, word_is(name, n, "min") ? "least(" : "greatest(");
        emit_arg(t, open + 1, close);
        emit(t, ")");
    } else if (word_is(name, n, "json") && argc == 1) {
        emit(t, "(");
        emit_arg(t, from[0], to[0]);
        emit(t, ")::json");
    } else if (word_is(name, n, "iif") && argc == 3) {
        emit(t, "CASE WHEN ");
        emit_arg(t, from[0], to[0]);
        emit(t, " THEN ");
        emit_arg(t, from[1], to[1]);
        emit(t, " ELSE ");
        emit_arg(t, from[2], to[2]);
        emit(t, " END");
    } else if (word_is(name, n, "substr") && (argc == 2 || argc == 3)) {
        /* positions bound as 64-bit integers: PostgreSQL's substr takes int */
        emit(t, "substr(");
        emit_arg(t, from[0], to[0]);
        for (int i = 1; i < argc; i++) {
            emit(t, ", (");
            emit_arg(t, from[i], to[i]);
            emit(t, ")::int");
        }
        emit(t, ")");
    } else if (word_is(name, n, "round") && argc == 2) {
        emit(t, "round((");
        emit_arg(t, from[0], to[0]);
        emit(t, ")::numeric, ");
        emit_arg(t, from[1], to[1]);
        emit(t, ")::float8");
    } else {
        return 0;
    }
    return 1;
}

/* CAST(x AS INTEGER): SQLite truncates a real, PostgreSQL would round it. */
static int rewrite_cast(translator *t, const char *open, const char *close)
{
    const char *p = close;
    while (p > open && isspace((unsigned char)p[-1]))
        p--;
    const char *type = p;
    while (type > open && is_word_char(type[-1]))
        type--;
    if (!word_is(type, (size_t)(p - type), "INTEGER"))
        return 0;
    const char *as = type;
    while (as > open && isspace((unsigned char)as[-1]))
        as--;
    if (as - open < 3 || strncasecmp(as - 2, "AS", 2) != 0 || is_word_char(as[-3]))
        return 0;
    const char *x_end = as - 2;
    while (x_end > open + 1 && isspace((unsigned char)x_end[-1]))
        x_end--;
    emit(t, "CAST(trunc((");
    translate(t, skip_space(open + 1, x_end), x_end);
    emit(t, ")::float8) AS bigint)");
    return 1;
}

/* 1 when the words at p are "OR IGNORE" (after INSERT): *after past them. */
static int or_ignore(const char *p, const char *end, const char **after)
{
    p = skip_space(p, end);
    if (end - p < 2 || strncasecmp(p, "OR", 2) != 0 || (p + 2 < end && is_word_char(p[2])))
        return 0;
    p = skip_space(p + 2, end);
    if (end - p < 6 || strncasecmp(p, "IGNORE", 6) != 0 || (p + 6 < end && is_word_char(p[6])))
        return 0;
    *after = p + 6;
    return 1;
}

static void end_statement(translator *t)
{
    if (t->conflict)
        emit(t, " ON CONFLICT DO NOTHING");
    t->conflict = 0;
}

/* A parenthesised group after FROM or JOIN is a subquery (or a join in
 * parentheses, which this code does not write): alias it if it has none. */
static void group(translator *t, const char *open, const char *close, const char *end, int after_from)
{
    emit(t, "(");
    translate(t, open + 1, close);
    emit(t, ")");
    if (!after_from)
        return;
    const char *next = skip_space(close + 1, end);
    int named = next < end && (isalpha((unsigned char)*next) || *next == '_' || *next == '"');
    static const char *const clauses[] = {"WHERE", "GROUP", "ORDER", "LIMIT", "JOIN", "LEFT", "INNER", "CROSS",
                                          "ON", "UNION", "WINDOW", "HAVING", "NATURAL", "EXCEPT", "INTERSECT"};
    if (named) {
        const char *w = next;
        while (w < end && is_word_char(*w))
            w++;
        for (size_t i = 0; i < sizeof clauses / sizeof clauses[0]; i++)
            if (word_is(next, (size_t)(w - next), clauses[i]))
                named = 0;
    }
    if (!named)
        ari_sbuf_printf(&t->out, " AS _q%d", ++t->aliases);
}

/* X GLOB 'pattern' is X ~ 'regular expression' (both case-sensitive):
 * `*` any run, `?` one character, [...] a class as it is, the rest
 * literal; anchored at both ends. */
static int rewrite_glob(translator *t, const char *p, const char *end, const char **next)
{
    const char *q = skip_space(p, end);
    if (q >= end || *q != '\'')
        return 0;
    const char *close = skip_quoted(q, end, '\'');
    emit(t, "~ '^");
    int in_class = 0;
    for (const char *c = q + 1; c < close - 1; c++) {
        if (in_class) {
            ari_sbuf_add(&t->out, c, 1);
            in_class = *c != ']';
        } else if (*c == '*') {
            emit(t, ".*");
        } else if (*c == '?') {
            emit(t, ".");
        } else if (*c == '[') {
            emit(t, "[");
            in_class = 1;
        } else if (*c == '\'') {
            emit(t, "''");
            c++; /* the doubled quote */
        } else {
            if (strchr(".^$+(){}|\\", *c))
                emit(t, "\\");
            ari_sbuf_add(&t->out, c, 1);
        }
    }
    emit(t, "$'");
    *next = close;
    return 1;
}

/* "BY name" after INDEXED: *next past the name. */
static int indexed_by(const char *p, const char *end, const char **next)
{
    p = skip_space(p, end);
    if (end - p < 2 || strncasecmp(p, "BY", 2) != 0)
        return 0;
    p = skip_space(p + 2, end);
    const char *name = p;
    while (p < end && is_word_char(*p))
        p++;
    if (p == name)
        return 0;
    *next = p;
    return 1;
}

static void word(translator *t, const char *start, const char *p, const char *end, const char **next)
{
    size_t n = (size_t)(p - start);
    const char *after = skip_space(p, end);
    *next = p;
    if (after < end && *after == '(') {
        const char *close = matching(after, end);
        if (close < end && word_is(start, n, "CAST") && rewrite_cast(t, after, close)) {
            *next = close + 1;
            return;
        }
        if (close < end && rewrite_call(t, start, n, after, close)) {
            *next = close + 1;
            return;
        }
    }
    const char *to = NULL;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (word_is(start, n, words[i].lite))
            to = words[i].pg;
    if (to && word_is(start, n, "LIKE") && last_char(t) == '(')
        to = NULL; /* CREATE TABLE x (LIKE y ...): a table's shape, not a pattern */
    if (word_is(start, n, "GLOB") && rewrite_glob(t, p, end, next))
        return;
    if (word_is(start, n, "INDEXED") && indexed_by(p, end, next))
        return; /* a hint to SQLite's planner; PostgreSQL's chooses alone */
    if (word_is(start, n, "INSERT") && or_ignore(p, end, next)) {
        emit(t, "INSERT");
        t->conflict = 1;
    } else if (n == 3 && strncmp(start, "end", 3) == 0) {
        emit(t, "\"end\"");
    } else if (to) {
        emit(t, to);
    } else {
        ari_sbuf_add(&t->out, start, n);
    }
}

static void translate(translator *t, const char *p, const char *end)
{
    int after_from = 0; /* the last word was FROM or JOIN */
    while (p < end) {
        const char *start = p;
        if (*p == '\'' || *p == '"') {
            p = skip_quoted(p, end, *p);
            ari_sbuf_add(&t->out, start, (size_t)(p - start));
        } else if (starts_comment(p, end)) {
            p = skip_comment(p, end);
            ari_sbuf_add(&t->out, start, (size_t)(p - start));
        } else if (*p == '?') {
            int n = 0;
            for (p++; p < end && isdigit((unsigned char)*p); p++)
                n = n * 10 + (*p - '0');
            if (n == 0)
                n = t->highest + 1;
            if (n > t->highest)
                t->highest = n;
            ari_sbuf_printf(&t->out, "$%d", n);
            after_from = 0;
        } else if (*p == '(') {
            const char *close = matching(p, end);
            if (close >= end) { /* unbalanced: copied for the server to reject */
                ari_sbuf_add(&t->out, p, (size_t)(end - p));
                return;
            }
            group(t, p, close, end, after_from);
            p = close + 1;
            after_from = 0;
        } else if (*p == ';') {
            end_statement(t);
            ari_sbuf_add(&t->out, p++, 1);
            after_from = 0;
        } else if (*p == '=' && p + 1 < end && p[1] == '=') {
            emit(t, "=");
            p += 2;
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            while (p < end && is_word_char(*p))
                p++;
            size_t n = (size_t)(p - start);
            after_from = word_is(start, n, "FROM") || word_is(start, n, "JOIN");
            word(t, start, p, end, &p);
        } else {
            if (!isspace((unsigned char)*p))
                after_from = 0;
            ari_sbuf_add(&t->out, p++, 1);
        }
    }
}

char *ari_pg_translate(const char *sql, int *nparams)
{
    translator t = {0};
    translate(&t, sql, sql + strlen(sql));
    end_statement(&t);
    if (ari_sbuf_failed(&t.out)) {
        ari_sbuf_free(&t.out);
        return NULL;
    }
    if (nparams)
        *nparams = t.highest;
    char *text = ari_sbuf_take(&t.out);
    return text ? text : strdup("");
}
