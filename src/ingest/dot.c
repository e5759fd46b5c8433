/* dot.c: the line-oriented DOT reader (see dot.h). Ids are cut in place in
 * the line buffer; quoted ids are unescaped (\" -> "). */
#include "ingest/dot.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "ingest/input.h"

typedef struct dot_reader {
    ari_input *in;
    ari_error *err;
    long depth; /* brace nesting */
} dot_reader;

static int fail(dot_reader *d, const char *reason)
{
    return ari_error_set(d->err, ARI_E_INVALID_INPUT, "%s:%llu: %s", ari_input_name(d->in),
                         (unsigned long long)ari_input_lineno(d->in), reason);
}

static char *skip_blanks(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int is_id_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Reads an id at *p (quoted or bare), NUL-terminates it in place and
 * advances *p past it. Returns the id, "" if none, NULL on error. */
static char *read_id(char **p, int *bad)
{
    char *s = *p;
    if (*s == '"') {
        char *src = s + 1, *dst = s + 1, *start = dst;
        while (*src && *src != '"') {
            if (*src == '\\' && src[1] == '"')
                src++; /* \" is a quote; other escapes (\n) stay as written */
            *dst++ = *src++;
        }
        if (*src != '"') {
            *bad = 1;
            return NULL;
        }
        char *after = src + 1;
        *dst = '\0';
        *p = after;
        return start;
    }
    char *start = s;
    while (is_id_char(*s))
        s++;
    *p = s;
    return start;
}

/* Finds label="..." or label=word in an attribute list; terminates it in
 * place. Returns NULL when absent. */
static char *find_label(char *attrs)
{
    char *l = strstr(attrs, "label");
    while (l && l > attrs && is_id_char(l[-1]))
        l = strstr(l + 1, "label");
    if (!l)
        return NULL;
    char *p = skip_blanks(l + 5);
    if (*p != '=')
        return NULL;
    p = skip_blanks(p + 1);
    int bad = 0;
    char *v = read_id(&p, &bad);
    if (!v || !*v)
        return NULL;
    *p = '\0';
    return v;
}

static void count_braces(dot_reader *d, const char *line)
{
    int quoted = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && *p == '{')
            d->depth++;
        else if (!quoted && *p == '}')
            d->depth--;
    }
}

static int is_keyword(const char *id, size_t len)
{
    static const char *const keywords[] = {"node", "edge", "graph", "digraph", "subgraph", "strict", NULL};
    for (size_t i = 0; keywords[i]; i++)
        if (strlen(keywords[i]) == len && strncmp(id, keywords[i], len) == 0)
            return 1;
    return 0;
}

static int statement(dot_reader *d, char *line, const ari_dot_callbacks *cb)
{
    char *p = skip_blanks(line);
    int bad = 0;
    if (*p != '"' && !is_id_char(*p))
        return 0;
    char *from = read_id(&p, &bad);
    if (bad)
        return fail(d, "unterminated quoted id");
    char *after_from = p;
    p = skip_blanks(p);
    if ((p[0] == '-' && (p[1] == '>' || p[1] == '-'))) {
        *after_from = '\0';
        p = skip_blanks(p + 2);
        char *to = read_id(&p, &bad);
        if (bad)
            return fail(d, "unterminated quoted id");
        if (!*to)
            return fail(d, "edge without a target");
        char *rest = p; /* the end of a bare target id: terminated after the label is cut */
        char *label = find_label(rest);
        *rest = '\0';
        return cb->on_edge ? cb->on_edge(cb->ctx, from, to, label) : 0;
    }
    if (*p == '[' && after_from > from && !is_keyword(from, (size_t)(after_from - from))) {
        char *label = find_label(p);
        *after_from = '\0';
        return cb->on_node ? cb->on_node(cb->ctx, from, label) : 0;
    }
    return 0;
}

int ari_dot_read(const char *path, const char *display_name, const ari_dot_callbacks *cb,
                 ari_error *err)
{
    dot_reader d = {ari_input_open(path, display_name, err), err, 0};
    if (!d.in)
        return -1;
    size_t len;
    char *line;
    int rc = 0, header = 0;
    while (rc == 0 && (line = ari_input_getline(d.in, &len, err)) != NULL) {
        char *p = skip_blanks(line);
        if (!*p || p[0] == '#' || (p[0] == '/' && p[1] == '/'))
            continue;
        if (!header) {
            if (strncmp(p, "digraph", 7) && strncmp(p, "graph", 5) && strncmp(p, "strict", 6)) {
                rc = fail(&d, "not a DOT graph (expected 'digraph' or 'graph')");
                break;
            }
            header = 1;
            count_braces(&d, p);
            continue;
        }
        count_braces(&d, p);
        if (d.depth < 0) {
            rc = fail(&d, "unbalanced '}'");
            break;
        }
        rc = statement(&d, p, cb);
    }
    if (rc == 0 && ari_input_failed(d.in))
        rc = -1;
    if (rc == 0 && !header)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: empty DOT file", ari_input_name(d.in));
    else if (rc == 0 && d.depth != 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT,
                           "%s: unexpected end of file (unclosed '{'): truncated?", ari_input_name(d.in));
    ari_input_close(d.in);
    return rc;
}

int ari_dot_probe(const char *head, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)head[i]))
        i++;
    const char *p = head + i;
    size_t n = len - i;
    return (n >= 7 && !strncmp(p, "digraph", 7)) || (n >= 5 && !strncmp(p, "graph", 5)) ||
           (n >= 6 && !strncmp(p, "strict", 6));
}
