/* paje_dialect.c: the writer of a Paje trace and its time unit, from its
 * type names and first comment (rule in paje_dialect.h). */
#include "ingest/paje_dialect.h"

#include <string.h>

void ari_paje_dialect_type(ari_paje_dialect *d, const ari_type_def *t)
{
    if (!t->name)
        return;
    if (t->nature == ARI_NATURE_CONTAINER && strcmp(t->name, "Program") == 0)
        d->program = 1;
    else if (t->nature == ARI_NATURE_CONTAINER && strcmp(t->name, "Worker") == 0)
        d->worker = 1;
    else if (t->nature == ARI_NATURE_STATE && strcmp(t->name, "Worker State") == 0)
        d->worker_state = 1;
}

static int starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *ari_paje_dialect_unit(const ari_paje_dialect *d, const char *first_comment, const char **source)
{
    if (d->program && d->worker && d->worker_state) {
        *source = "detected: a StarPU paje.trace (container types Program and Worker, state type "
                  "Worker State); StarPU writes milliseconds";
        return "ms";
    }
    if (starts_with(first_comment, "This file was generated using SimGrid")) {
        *source = "detected: a SimGrid trace (its first comment); SimGrid writes seconds";
        return "s";
    }
    if (starts_with(first_comment, "POTI_GIT_VERSION")) {
        *source = "detected: a poti trace (its first comment); poti writes seconds";
        return "s";
    }
    *source = "default: seconds, Paje's customary unit (no known writer recognised)";
    return "s";
}
