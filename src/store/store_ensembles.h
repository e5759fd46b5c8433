/* store_ensembles.h: ensembles of profile traces (sql/012_ensembles.sql):
 * creating, listing, reading, renaming and deleting them, adding and
 * removing members, and their execution parameters.
 *
 * An ensemble is a named, ordered set of members; a member is a trace of
 * kind 'profile' (any other kind is refused) with its name in the ensemble
 * and its execution parameters: text values keyed by name, each with its
 * source: "metadata" (read from the profile's own run metadata when the
 * member is added: Caliper globals, Hatchet and HPCToolkit metadata, see
 * ari_ensemble_add_members), "user" or "csv". Deleting a trace removes it
 * from every ensemble; deleting an ensemble leaves its traces.
 *
 * Every write below is one transaction (BEGIN IMMEDIATE ... COMMIT): it
 * commits whole or returns -1 with err set and changes nothing. Errors:
 * ARI_E_NOT_FOUND for an absent ensemble ("no ensemble N") or member,
 * ARI_E_INVALID_PARAMETER for a request that cannot be applied (a trace
 * that does not exist, is not a profile or is already a member; an empty
 * name), ARI_E_BUSY / ARI_E_DB from SQLite.
 */
#ifndef ARIADNE_STORE_ENSEMBLES_H
#define ARIADNE_STORE_ENSEMBLES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/error.h"

#define ARI_ENSEMBLE_NAME_MAX    200 /* bytes of an ensemble's or member's name */
#define ARI_ENSEMBLE_KEY_MAX     128 /* bytes of a parameter's name */
#define ARI_ENSEMBLE_VALUE_MAX   512 /* bytes of a parameter's value */
#define ARI_ENSEMBLE_MAX_MEMBERS 10000

/* One member of an ensemble: a profile trace and its execution parameters. */
typedef struct ari_ensemble_member {
    int64_t trace_id;
    char *name; /* the run's name in the ensemble (defaults to the trace's name) */
    int nparams;
    char **param_keys;    /* parallel arrays, keys sorted; values as text */
    char **param_values;  /* a numeric parameter is one whose every member's value parses with strtod */
    char **param_sources; /* "metadata", "user" or "csv" */
    int64_t position;     /* the member's rank in the order members were added (gaps possible) */
    char trace_stamp[96]; /* the trace's created_at and sha256: with trace_id, which stored
                           * profile this is (a deleted trace's reused id never matches) */
} ari_ensemble_member;

typedef struct ari_ensemble {
    int64_t id;
    char *name;
    char *created_at; /* ISO 8601 UTC */
    int nmembers;
    ari_ensemble_member *members; /* in member order (the order they were added) */
} ari_ensemble;

/* Loads ensemble `id` with its members and parameters. 0; -1 with err
 * (ARI_E_NOT_FOUND when there is no such ensemble). */
int ari_ensemble_get(ari_store *s, int64_t id, ari_ensemble *out, ari_error *err);
void ari_ensemble_free(ari_ensemble *e);

/* 1 if `key` is a numeric parameter of e: at least one member has it and
 * every value it has parses whole with strtod to a finite number (members
 * without the key do not count). */
int ari_ensemble_param_numeric(const ari_ensemble *e, const char *key);
/* Member m's value of parameter `key` as a number: 0 when its whole text
 * parses with strtod to a finite number (*out); 1 when m does not have the
 * key; -1 when its text is not such a number. When text is not NULL and m
 * has the key, *text = its value's text (borrowed from m). */
int ari_ensemble_member_number(const ari_ensemble_member *m, const char *key, double *out, const char **text);
/* The distinct parameter keys of e's members, sorted (strcmp), into *keys
 * (malloc'd array of pointers into e's strings: free the array only). */
int ari_ensemble_param_keys(const ari_ensemble *e, const char ***keys, int *n, ari_error *err);

/* One ensemble in a list. */
typedef struct ari_ensemble_info {
    int64_t id;
    char *name;
    char *created_at;
    int64_t nmembers;
} ari_ensemble_info;

/* Every ensemble, newest first (id descending). */
int ari_ensembles_list(ari_store *s, ari_ensemble_info **out, size_t *n, ari_error *err);
void ari_ensemble_infos_free(ari_ensemble_info *infos, size_t n);

/* Creates an ensemble called name with the traces trace_ids[0..n) as its
 * members in that order (n may be 0), their parameters read from their
 * metadata. *id_out gets its id. One transaction. */
int ari_ensemble_create(ari_store *s, const char *name, const int64_t *trace_ids, size_t n, int64_t *id_out,
                        ari_error *err);
/* ari_ensemble_create for an upload (server/jobs.c): also records the new
 * ensemble's id in import job job_id's params_json ("ensemble_id"), in the
 * same transaction. */
int ari_ensemble_create_for_job(ari_store *s, int64_t job_id, const char *name, const int64_t *trace_ids, size_t n,
                                int64_t *id_out, ari_error *err);
/* Renames ensemble id (not a transaction of its own: one statement).
 * 0, or -1 (ARI_E_NOT_FOUND if absent). */
int ari_ensemble_rename(ari_store *s, int64_t id, const char *name, ari_error *err);
/* Deletes ensemble id, never its traces. 0, 1 if absent, -1 on error. */
int ari_ensemble_delete(ari_store *s, int64_t id, ari_error *err);

/* Adds traces as members after the existing ones, named after their
 * traces ("NAME (trace ID)" when the ensemble already has a member called
 * NAME, as repeated trials of one program all are), with the parameters of their metadata: every scalar entry of the
 * trace's metadata (meta_json) and of its objects one level down ("a.b";
 * the keys of a Hatchet file's "metadata" object as they are),
 * except Caliper's bookkeeping (keys starting "spot." or "cali.") and
 * values longer than ARI_ENSEMBLE_VALUE_MAX; real numbers are written with
 * %.15g, or %.17g when that does not give the same double back ("1048576",
 * not "1048576.0"); booleans as true/false. Plus "ranks", the profile's number of
 * distinct ranks, unless the metadata has that key. One transaction. */
int ari_ensemble_add_members(ari_store *s, int64_t id, const int64_t *trace_ids, size_t n, ari_error *err);
/* Removes trace_id from ensemble id (the trace stays). 0, or -1
 * (ARI_E_NOT_FOUND: no such ensemble, or the trace is not a member). */
int ari_ensemble_remove_member(ari_store *s, int64_t id, int64_t trace_id, ari_error *err);

/* One change of a member: its new name (NULL: unchanged) and parameters to
 * set (value non-NULL) or remove (value NULL). */
typedef struct ari_ensemble_param_set {
    int64_t trace_id;
    const char *key;
    const char *value;
} ari_ensemble_param_set;

/* One PATCH of an ensemble: its new name (NULL: unchanged), member names
 * (member_names[i] for member_ids[i]) and parameters to set, with `source`
 * ("user" or "csv"). */
typedef struct ari_ensemble_patch {
    const char *name;
    const int64_t *member_ids;
    const char *const *member_names;
    size_t nnames;
    const ari_ensemble_param_set *sets;
    size_t nsets;
    const char *source;
} ari_ensemble_patch;

/* Applies u to ensemble id in one transaction: all of it or nothing.
 * ARI_E_NOT_FOUND for an absent ensemble, ARI_E_INVALID_PARAMETER for a
 * trace that is not a member, or an empty or too long name, key or value. */
int ari_ensemble_update(ari_store *s, int64_t id, const ari_ensemble_patch *u, ari_error *err);

#endif
