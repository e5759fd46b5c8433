/* format_paje.h: the Paje import format, and reading one Paje file into a
 * trace writer (also used by the StarPU bundle format). */
#ifndef ARIADNE_FORMAT_PAJE_H
#define ARIADNE_FORMAT_PAJE_H

#include "import/formats.h"

extern const ari_format ari_format_paje;

int ari_format_paje_read(struct ari_trace_writer *w, const ari_import_file *f, const char *role,
                         ari_error *err);

#endif
