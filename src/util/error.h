/* error.h: the error record that the core library fills in for its callers.
 *
 * Every fallible core function takes an `ari_error *` (may be NULL) and, on
 * failure, sets a stable machine-readable code (the same strings the HTTP API
 * returns in {"error":{"code":...}}) and a human message that names the file,
 * line and reason where there is one.
 */
#ifndef ARIADNE_ERROR_H
#define ARIADNE_ERROR_H

#include <stdarg.h>

typedef struct ari_error {
    char code[48];
    char message[1024];
} ari_error;

/* Codes used across the project. */
#define ARI_E_INVALID_INPUT     "invalid_input"      /* malformed file content */
#define ARI_E_UNSUPPORTED       "unsupported_format" /* no reader recognises it */
#define ARI_E_IO                "io_error"
#define ARI_E_NOMEM             "out_of_memory"
#define ARI_E_DB                "database_error"
#define ARI_E_BUSY              "busy"
#define ARI_E_NOT_FOUND         "not_found"
#define ARI_E_INVALID_PARAMETER "invalid_parameter"
#define ARI_E_TOO_LARGE         "too_large"
#define ARI_E_CANCELLED         "cancelled"
#define ARI_E_UNAVAILABLE       "unavailable"        /* the database, or a shard holding the data, cannot be reached */

/* Sets code and a printf-style message; returns -1 so callers can write
 * `return ari_error_set(err, ...);`. `err` may be NULL. */
int ari_error_set(ari_error *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void ari_error_clear(ari_error *err);

#endif
