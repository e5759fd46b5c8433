/* starpu_writer.h: low-level output for the simulated StarPU trace.
 *
 * Three small pieces used by cholesky_sim.c:
 *   - sw_line: a fixed-size line builder with fast number formatting (times
 *     are integer picoseconds, printed as milliseconds with a fixed number
 *     of decimals, as starpu_fxt_tool does);
 *   - sw_paje: the paje.trace body writer. Unsorted mode mimics FxT: every
 *     stream (one per worker, one per node, one for MPI) fills its own
 *     buffer, and a full buffer is appended to the file in turn, so the file
 *     is not time-ordered. Sorted mode merges all lines through a heap keyed
 *     by (time, emission order), flushing whatever is older than the
 *     simulation clock; the result is stably time-ordered.
 *   - sw_file: a buffered output file with error tracking.
 * Memory is bounded by the stream buffers (unsorted) or by the lines whose
 * time is still in the future of the simulation clock (sorted).
 */
#ifndef ARIADNE_GEN_STARPU_WRITER_H
#define ARIADNE_GEN_STARPU_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

#define SW_LINE_MAX 1024

typedef struct sw_line {
    size_t n;
    char s[SW_LINE_MAX];
} sw_line;

void sw_reset(sw_line *l);
void sw_str(sw_line *l, const char *s);
void sw_chr(sw_line *l, char c);
void sw_i64(sw_line *l, int64_t v);
void sw_hex(sw_line *l, uint64_t v, int min_digits);
/* Picoseconds as milliseconds with `decimals` (6 or 9) digits, truncated. */
void sw_ms(sw_line *l, int64_t ps, int decimals);
/* A non-negative double with 6 decimals (like printf "%f"). */
void sw_f6(sw_line *l, double v);

/* Buffered output file. */
typedef struct sw_file {
    FILE *f;
    char *path;
    uint64_t bytes;
    int failed;
} sw_file;

int sw_file_open(sw_file *out, const char *dir, const char *name, ari_error *err);
void sw_file_write(sw_file *out, const char *s, size_t n);
void sw_file_line(sw_file *out, const sw_line *l);
int sw_file_close(sw_file *out, ari_error *err);

/* paje.trace header text as starpu_fxt_tool writes it: the %EventDef block
 * (PajeSetState 20 carries Size, Params, Footprint, Tag, JobId, SubmitOrder,
 * GFlop, X, Y, Iteration, Subiteration, NumaNodes) and the type definitions
 * (containers MPIP/P/Mn/T/UT/Mm/W/MPICt/Sc, states WS/US/CtS/MS, variables,
 * links MPIL and F, worker state values). */
extern const char sw_starpu_eventdefs[];
extern const char sw_starpu_types[];

typedef struct sw_paje sw_paje;

sw_paje *sw_paje_open(const char *dir, int sorted, int nstreams, size_t chunk,
                      ari_error *err);
/* Header text, written at once at the current end of the file. */
void sw_paje_raw(sw_paje *p, const char *s, size_t n);
/* A body line (with its '\n') of the given stream, dated `ps`. */
int sw_paje_emit(sw_paje *p, int stream, int64_t ps, const sw_line *l);
/* Sorted mode: writes every pending line dated <= now. No-op otherwise. */
void sw_paje_advance(sw_paje *p, int64_t now);
/* Lines written or pending so far (header and body). */
uint64_t sw_paje_lines(const sw_paje *p);
/* Non-zero once a write to paje.trace has failed (e.g. disk full). */
int sw_paje_failed(const sw_paje *p);
/* Flushes everything, closes and frees. Returns -1 on a write error. */
int sw_paje_close(sw_paje *p, ari_error *err);

#endif
