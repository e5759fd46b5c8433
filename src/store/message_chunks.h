/* message_chunks.h: the matched messages of an event trace packed in
 * chunks (sql/018_message_chunks.sql), as state_chunks.h packs its calls:
 * one row of up to ARI_MESSAGE_CHUNK messages instead of one ev_messages
 * row per message, which made the rows a quarter of a large import.
 *
 * Written at import by event_writer.c (ari_message_packer, in matching
 * order: message seq is chunk * ARI_MESSAGE_CHUNK + i), read by every
 * reader of an event trace's messages (event_queries.c,
 * event_message_window.c, state_queries.c's links) through
 * ari_message_chunks_each, which also reads the ev_messages rows of the
 * traces imported before sql/018 (a trace has either rows or chunks), so
 * that both answer alike. Memory while writing: one chunk; while reading
 * in send order: at most `cap` messages (a window holding more is read in
 * slices of its send times, halved while too full).
 */
#ifndef ARIADNE_MESSAGE_CHUNKS_H
#define ARIADNE_MESSAGE_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/event_comm.h" /* ari_ec_message */
#include "store/store.h"
#include "util/error.h"

#define ARI_MESSAGE_CHUNK        2048
#define ARI_MESSAGE_RECORD_BYTES 56
/* The cap of the readers in send order: 512 Ki messages, 40 MiB held. */
#define ARI_MESSAGE_SORT_CAP ((int64_t)1 << 19)

/* ---- writing ---- */

typedef struct ari_message_packer ari_message_packer;

ari_message_packer *ari_message_packer_new(ari_store *s, int64_t trace_id, ari_error *err);
/* Adds the trace's next message (its seq is the number added before it;
 * the threads are not stored). Containers must fit in 32 bits. */
int ari_message_packer_add(ari_message_packer *p, const ari_ec_message *m, ari_error *err);
/* Writes what is buffered. */
int ari_message_packer_finish(ari_message_packer *p, ari_error *err);
void ari_message_packer_free(ari_message_packer *p);

/* ---- the record format (exposed for the tests) ---- */

/* Encodes m into rec[ARI_MESSAGE_RECORD_BYTES]. 0, or -1 with err set
 * when a container or rank does not fit in 32 bits. */
int ari_message_record_put(unsigned char *rec, const ari_ec_message *m, ari_error *err);
/* Decodes record i of a chunk's blob (bytes long, n records) into *m
 * (threads 0). Checks the blob first with ari_message_blob_check. */
void ari_message_record_get(const unsigned char *blob, int64_t i, ari_ec_message *m);
/* 0 when a blob of `bytes` holds exactly n records (1 <= n <=
 * ARI_MESSAGE_CHUNK), else -1 with err set (ARI_E_DB). */
int ari_message_blob_check(int64_t bytes, int64_t n, ari_error *err);

/* ---- reading ---- */

/* Which messages a read yields: sent in [send_lo, send_hi] and received
 * at or after recv_lo (-HUGE_VAL / HUGE_VAL: open). */
typedef struct ari_mc_filter {
    double send_lo, send_hi, recv_lo;
} ari_mc_filter;

/* The whole trace. */
ari_mc_filter ari_mc_all(void);

/* Called per message with its seq; a non-zero answer stops the read and
 * is returned. The threads of m are 0. */
typedef int (*ari_mc_fn)(void *ctx, int64_t seq, const ari_ec_message *m);

/* Calls fn on the trace's messages that f keeps: `sorted`: by send time
 * then seq (as ev_messages' key ordered them), holding at most cap
 * messages (>= 2; ARI_E_TOO_LARGE when more than cap were sent at one
 * instant); else in no set order (streamed, nothing held: the chunks
 * arrive one at a time, so fn must not run statements on s). Returns 0,
 * fn's first non-zero answer, or -1 with err set. */
int ari_message_chunks_each(ari_store *s, int64_t trace_id, const ari_mc_filter *f, int sorted, int64_t cap,
                            ari_mc_fn fn, void *ctx, ari_error *err);

/* The trace's smallest send and largest receive time (NAN, NAN when it
 * has no messages). 0 or -1. */
int ari_message_chunks_extent(ari_store *s, int64_t trace_id, double *lo, double *hi, ari_error *err);

#endif
