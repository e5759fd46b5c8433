/* format_starvz.h: the "starvz" import format: a directory of StarVZ
 * phase-1 CSV files (paje.worker_state.csv.gz, paje.variable.csv.gz,
 * paje.link.csv.gz, rec.tasks.csv.gz, dag.csv.gz, entities.csv,
 * atree.csv, ...), loaded into the same model as a StarPU bundle. */
#ifndef ARIADNE_FORMAT_STARVZ_H
#define ARIADNE_FORMAT_STARVZ_H

#include "import/formats.h"

extern const ari_format ari_format_starvz;

#endif
