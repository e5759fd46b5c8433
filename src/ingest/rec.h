/* rec.h: a streaming reader of GNU recfiles (StarPU's tasks.rec, data.rec,
 * papi.rec, platform_file.rec).
 *
 * A record is a run of "Field: value" lines; blank lines separate records.
 * Lines starting with '#' are comments. A line starting with '+' continues
 * the previous field's value on a new line ("+ " drops one space). Records
 * whose first field starts with '%' (record descriptors such as
 * "%rec: worker_count") are skipped. Only one record is held in memory at a
 * time, and a record may not exceed ARI_REC_MAX_FIELDS fields.
 *
 * Errors (ARI_E_INVALID_INPUT, "name:line: reason"): a line that is not a
 * field, a continuation without a field, a bad field name, too many fields;
 * the line reader's own errors (NUL bytes, overlong lines, corrupt
 * compression) come through as they are.
 */
#ifndef ARIADNE_REC_H
#define ARIADNE_REC_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/sink.h"
#include "util/error.h"

#define ARI_REC_MAX_FIELDS 4096

typedef struct ari_rec ari_rec;

ari_rec *ari_rec_open(const char *path, const char *display_name, ari_error *err);

/* Reads the next record: returns 1 and points *fields at its n fields (in
 * file order, valid until the next call), 0 at the end, -1 on error. */
int ari_rec_next(ari_rec *r, const ari_field **fields, size_t *n, ari_error *err);

/* The name used in messages. */
const char *ari_rec_name(const ari_rec *r);

/* Line number where the last record returned starts. */
uint64_t ari_rec_lineno(const ari_rec *r);

/* Bytes of the file consumed so far and its size, for progress. */
uint64_t ari_rec_bytes_read(const ari_rec *r);
uint64_t ari_rec_total_bytes(const ari_rec *r);

void ari_rec_close(ari_rec *r);

/* The value of the first field called name, or NULL. */
const char *ari_rec_get(const ari_field *fields, size_t n, const char *name);

/* 1 if the first bytes of a file look like a recfile ("Name: value" lines,
 * comments or blank lines only), else 0. */
int ari_rec_probe(const char *head, size_t len);

#endif
