/* dot.h: the subset of Graphviz DOT that StarPU and qr_mumps write: one
 * statement per line, edges `"task_1" -> "task_2" [label="task"]` (dag.dot)
 * or `node000017 -- node000001` (atree.dot), node statements
 * `"task_1" [label="POTRF", ...]`. Other lines (graph attributes, subgraph
 * headers, multi-line attribute lists) are skipped.
 *
 * Errors (ARI_E_INVALID_INPUT): a file that does not start with a
 * (di)graph header, an unterminated quoted id, braces that do not balance
 * by the end of the file (a truncated file), and the line reader's errors.
 */
#ifndef ARIADNE_DOT_H
#define ARIADNE_DOT_H

#include <stddef.h>

#include "util/error.h"

typedef struct ari_dot_callbacks {
    void *ctx;
    /* An edge from -> to (or from -- to); label is NULL when absent. */
    int (*on_edge)(void *ctx, const char *from, const char *to, const char *label);
    /* A node statement with a label attribute (may be NULL). */
    int (*on_node)(void *ctx, const char *id, const char *label);
} ari_dot_callbacks;

/* Returns 0, -1 with err set, or a callback's non-zero result. */
int ari_dot_read(const char *path, const char *display_name, const ari_dot_callbacks *cb,
                 ari_error *err);

/* 1 if the head of a file looks like a DOT graph, else 0. */
int ari_dot_probe(const char *head, size_t len);

#endif
