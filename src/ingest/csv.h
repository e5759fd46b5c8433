/* csv.h: a streaming CSV reader over ari_input (plain or compressed).
 *
 * One row per line (RFC 4180 quoting: "a, b" and "" for a quote inside a
 * quoted field; a quoted field may not span lines). Unquoted fields are
 * trimmed of surrounding blanks, so pj_dump's ", " separators read as
 * plain commas. Rows are handed out as arrays of NUL-terminated strings
 * valid until the next call. Errors (ARI_E_INVALID_INPUT, "name:line:
 * reason"): an unterminated quote, text after a closing quote, more than
 * ARI_CSV_MAX_FIELDS fields; the line reader's errors as they are.
 */
#ifndef ARIADNE_CSV_H
#define ARIADNE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ARI_CSV_MAX_FIELDS 1024

typedef struct ari_csv ari_csv;

ari_csv *ari_csv_open(const char *path, const char *display_name, ari_error *err);

/* Next row: 1 with *fields and *n set, 0 at the end of the file, -1 on error.
 * Blank lines are skipped. */
int ari_csv_next(ari_csv *c, char ***fields, size_t *n, ari_error *err);

/* Index of the column called name in a header row, or -1. */
int ari_csv_column(char **header, size_t n, const char *name);

uint64_t ari_csv_lineno(const ari_csv *c);
const char *ari_csv_name(const ari_csv *c);
uint64_t ari_csv_bytes_read(const ari_csv *c);
uint64_t ari_csv_total_bytes(const ari_csv *c);

void ari_csv_close(ari_csv *c);

#endif
