/* chrome_trace_hermes.c: the Hermes-profile test on an event's args (see
 * chrome_trace_hermes.h). */
#include "ingest/chrome_trace_hermes.h"

#include <jansson.h>
#include <stddef.h>

int ari_trace_args_are_hermes(const char *args)
{
    static const char *const keys[] = {"line", "column", "name", "category", "url", "params",
                                       "allocatedCategory", "allocatedName", NULL};
    json_t *v = args ? json_loads(args, JSON_DECODE_ANY, NULL) : NULL;
    int ok = json_is_object(v);
    for (int i = 0; ok && keys[i]; i++)
        ok = json_object_get(v, keys[i]) != NULL;
    json_decref(v);
    return ok;
}
