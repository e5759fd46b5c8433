/* csv_tables.h: for each analysis endpoint with a CSV form, its tables:
 * which arrays of its JSON answer hold the marks and which columns, with
 * units, a row has (the language is in csv_writer.h). The first table is
 * the endpoint's main one; docs/api.md lists them all. */
#ifndef ARIADNE_CSV_TABLES_H
#define ARIADNE_CSV_TABLES_H

#include "csv_writer.h"

typedef struct ari_csv_view {
    const char *pattern;          /* the route's pattern (router.c) */
    const char *view;             /* names the downloaded file */
    const ari_csv_table *tables;  /* ended by a table without name */
} ari_csv_view;

/* The view of a route pattern, NULL when the route has no CSV form. */
const ari_csv_view *ari_csv_view_find(const char *pattern);
/* All views (for tests and docs). */
const ari_csv_view *ari_csv_views(size_t *n);
/* The table called name in v, NULL if none. */
const ari_csv_table *ari_csv_table_find(const ari_csv_view *v, const char *name);

#endif
