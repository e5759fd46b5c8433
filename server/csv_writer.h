/* csv_writer.h: flattens a JSON answer into one tidy CSV table (RFC 4180),
 * following a table description: which arrays hold the marks (nested
 * arrays are walked with their parents, whose columns repeat on each row)
 * and which columns to write, with their units in the header.
 *
 * Rows. `rows` names the levels walked from the answer's root, each a path
 * to a collection followed by how it is walked:
 *   "key[]"    an array: one element at a time;
 *   "key{}"    an object of parallel arrays (column-oriented answers): row i
 *              sees every member's element i;
 *   "key.*"    an object: one member at a time (its key is the level's "#").
 * e.g. "rows[].tasks[]": every task of every row; "bytes[][]": every cell
 * of a matrix. A path may go through objects ("rows[].pixels.idle[]"); an
 * empty path walks the element itself ("layers[]{}": each layer is an
 * object of parallel arrays). rows "." is one row: the root.
 *
 * Columns. `path` says where a value is, relative to the deepest level's
 * element unless it starts with "@k" (level k; @0 is the root, @1 the first
 * level's element): ".key" or "key" a member, "[n]" an array element, "#"
 * the level's index (or member key), "." or "" the element itself. The ops:
 *   ARI_CSV_VALUE    the value at path;
 *   ARI_CSV_DIFF     value at path minus value at `arg` (end - start), in
 *                    15 significant digits (no subtraction noise);
 *   ARI_CSV_LOOKUP   the value at path (or the level index, "#") is an index
 *                    into the array at `arg` (a root path, "@0.types"), and
 *                    the column gets that array's element (a type's name),
 *                    followed along `sub` when given ("name" of {name,color});
 *   ARI_CSV_PARALLEL the element of the root array `arg` at the indices of
 *                    levels 1..n (a matrix beside the walked one).
 * Values: null or missing is an empty field; strings as they are; numbers
 * in the fewest digits that read back as the same double (15 to 17; a
 * whole real prints without ".0"); booleans true/false;
 * objects and arrays as compact JSON text.
 *
 * Escaping (RFC 4180): a field holding a comma, a quote, CR or LF is quoted
 * and its quotes doubled. A string that starts with = + - @ (or tab, CR) is
 * prefixed with a single quote, so that a spreadsheet does not run it as a
 * formula (OWASP "CSV injection"); numbers are never prefixed, so -3.5
 * stays a number. Lines end with CRLF, as RFC 4180 says. */
#ifndef ARIADNE_CSV_WRITER_H
#define ARIADNE_CSV_WRITER_H

#include <jansson.h>

#include "util/error.h"
#include "util/sbuf.h"

typedef enum ari_csv_op { ARI_CSV_VALUE = 0, ARI_CSV_DIFF, ARI_CSV_LOOKUP, ARI_CSV_PARALLEL } ari_csv_op;

/* The unit of a column: NULL none; ARI_CSV_TIME the answer's time_unit
 * (the table's default when the answer has none); else written as is. */
#define ARI_CSV_TIME "@time"

typedef struct ari_csv_column {
    const char *name; /* header: name, or name_unit */
    const char *unit;
    const char *path;
    ari_csv_op op;
    const char *arg;
    const char *sub;
} ari_csv_column;

#define ARI_CSV_MAX_COLUMNS 24
#define ARI_CSV_MAX_LEVELS  4

typedef struct ari_csv_table {
    const char *name;                            /* "tasks", "edges", ...: the table= value */
    const char *rows;                            /* the levels, see above */
    const char *time_default;                    /* unit of ARI_CSV_TIME when the answer has no time_unit */
    const char *where;                           /* if set, only rows whose string at this path */
    const char *equals;                          /* equals this ("@1.mode" == "states") */
    ari_csv_column columns[ARI_CSV_MAX_COLUMNS]; /* ended by a column without name */
} ari_csv_table;

/* Appends one field to out, escaped as above. */
void ari_csv_field(ari_sbuf *out, const char *text, int is_string);
/* Writes the header and one line per row of table t in the answer root to
 * out. Returns the number of rows, or -1 (ARI_E_INVALID_INPUT in *err) when
 * the description does not parse or the buffer failed. */
long ari_csv_write(const json_t *root, const ari_csv_table *t, ari_sbuf *out, ari_error *err);
/* The number of rows table t has in root (0 when its arrays are absent). */
long ari_csv_count(const json_t *root, const ari_csv_table *t);

#endif
