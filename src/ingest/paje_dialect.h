/* paje_dialect.h: which program wrote a Paje trace, and so its time unit.
 *
 * Paje itself has no unit: a date is a number. The programs that write
 * Paje do: StarPU's starpu_fxt_tool writes milliseconds, SimGrid and poti
 * (and pajeng's examples) write seconds. A single Paje file is labelled by
 * this rule, first match wins:
 *   1. StarPU: it defines the container types "Program" and "Worker" and
 *      the state type "Worker State" (the names starpu_fxt_tool gives)
 *      -> "ms";
 *   2. SimGrid or poti: its first comment says so ("This file was generated
 *      using SimGrid-...", "POTI_GIT_VERSION ...") -> "s";
 *   3. otherwise "s", Paje's customary unit.
 * The unit is a label: nothing is rescaled. The source sentence says which
 * rule decided, for the trace's time_unit_source.
 */
#ifndef ARIADNE_PAJE_DIALECT_H
#define ARIADNE_PAJE_DIALECT_H

#include "ingest/sink.h"

typedef struct ari_paje_dialect {
    int program, worker, worker_state; /* StarPU's type names seen */
} ari_paje_dialect;

/* Notes one type definition (call it for every on_type of the read). */
void ari_paje_dialect_type(ari_paje_dialect *d, const ari_type_def *t);

/* The unit ("ms" or "s") by the rule above; *source gets a static
 * sentence saying how it was decided. first_comment may be NULL. */
const char *ari_paje_dialect_unit(const ari_paje_dialect *d, const char *first_comment, const char **source);

#endif
