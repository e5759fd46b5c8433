/* hpctoolkit.h: HPCToolkit databases (experiment.xml v2.0 plus one
 * big-endian .metric-db file per rank and thread) as call-graph profiles,
 * read as Hatchet's HPCToolkitReader does: PF/Pr frames named
 * "<call line>:<procedure>", loops "Loop@<file>:<line>", statements
 * "<file>:<line>" with the file of the last frame or loop seen; call sites
 * (C) and unnamed Pr are not nodes; a statement's exclusive values are
 * subtracted from its XML parent's; CPUTIME (usec) (E)/(I) become "time"
 * and "time (inc)"; rank and thread come from the metric-db file names.
 */
#ifndef ARIADNE_HPCTOOLKIT_H
#define ARIADNE_HPCTOOLKIT_H

#include <stddef.h>

#include "ingest/profile_sink.h"
#include "util/error.h"

/* 1 if the head of a file is an HPCToolkit experiment.xml. */
int ari_hpctoolkit_xml_probe(const char *head, size_t n);
/* 1 if the file name is a metric-db ("....metric-db"). */
int ari_hpctoolkit_is_metricdb(const char *name);

/* Reads experiment.xml and the metric-db files (paths with the names that
 * messages use, and that give rank and thread). */
int ari_hpctoolkit_read(const char *xml_path, const char *xml_name, const char *const *db_paths,
                        const char *const *db_names, size_t ndb, const ari_profile_sink *k,
                        ari_error *err);

#endif
