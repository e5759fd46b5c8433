/* error.c: filling in ari_error records. */
#include "util/error.h"

#include <stdio.h>
#include <string.h>

int ari_error_set(ari_error *err, const char *code, const char *fmt, ...)
{
    if (!err)
        return -1;
    snprintf(err->code, sizeof err->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

void ari_error_clear(ari_error *err)
{
    if (err) {
        err->code[0] = '\0';
        err->message[0] = '\0';
    }
}
