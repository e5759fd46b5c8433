/* format_profiles.h: the import formats of call-graph profiles (kind
 * "profile"): HPCToolkit databases (a bundle: experiment.xml and the
 * *.metric-db files of its directory; or, from HPCToolkit 2022 on, meta.db
 * with profile.db, cct.db and trace.db), Caliper json-split, Caliper JSON
 * record lists, native .cali files, and Hatchet's JSON (graph+dataframe
 * or literal), TAU text profiles (profile.N.C.T files of a directory).
 * Each reads into the store's profile writer. */
#ifndef ARIADNE_FORMAT_PROFILES_H
#define ARIADNE_FORMAT_PROFILES_H

#include "import/formats.h"

extern const ari_format ari_format_hpctoolkit;
extern const ari_format ari_format_caliper_split;
extern const ari_format ari_format_caliper_records;
extern const ari_format ari_format_cali;
extern const ari_format ari_format_hatchet_json;
extern const ari_format ari_format_tau;

#endif
