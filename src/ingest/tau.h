/* tau.h: TAU's text profiles as call-graph profiles (TAU_PROFILE_FORMAT=
 * profile with TAU_CALLPATH=1: one file profile.<node>.<context>.<thread>
 * per process and thread), read as Hatchet's tau_reader.py reads them:
 *
 *   23 templated_functions_MULTI_TIME
 *   # Name Calls Subrs Excl Incl ProfileCalls # <metadata>...<value>TIME</value>...
 *   ".TAU application" 1 7 449 51781 0 GROUP="TAU_DEFAULT"
 *   "MPI_Init()  " 1 0 17983 17983 0 GROUP="MPI"
 *   ".TAU application => MPI_Init()  " 1 0 17983 17983 0 GROUP="TAU_CALLPATH|MPI"
 *   ...
 *
 * The first function line is the root; the calling context tree is made of
 * the call-path lines (those with "=>"), each naming its context from the
 * root, parents created on first sight; flat lines without "=>" (other than
 * the root) are TAU's per-function totals and are not nodes. Values: the
 * metric of the file ("time" for TIME or CPU_TIME, in microseconds, else its
 * TAU name) exclusive (Excl) and inclusive ("time (inc)", Incl), per (node =
 * MPI rank, thread). A frame "<name> [{<file>} {<line>,<col>}-{...}]" gives
 * the file and line; "<name> C [{<file>} ...]" a C function; "[UNWIND]
 * <file> [@] <name> ..." a sampled frame. Lines after the function lines
 * (aggregates, user events) are not read.
 */
#ifndef ARIADNE_TAU_H
#define ARIADNE_TAU_H

#include <stddef.h>

#include "ingest/profile_sink.h"
#include "util/error.h"

/* Is this the head of a TAU profile ("<count> templated_functions...")? */
int ari_tau_probe(const char *head, size_t n);

/* Is `name` (a base name) profile.<node>.<context>.<thread>? Sets *rank to
 * the node and *thread to the thread. */
int ari_tau_profile_name(const char *name, long long *rank, long long *thread);

/* Reads the n profile files (one per rank and thread; names as the user
 * knows them, for messages) of one run into the sink. */
int ari_tau_read(const char *const *paths, const char *const *names, size_t n, const ari_profile_sink *k,
                 ari_error *err);

#endif
