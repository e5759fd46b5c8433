/* event_comm.h: the communication analyses of an event trace (issue 19,
 * Pipit's set), pure C over matched point-to-point messages that the
 * caller streams in (store/event_queries.h reads them):
 *  - the communication matrix (bytes or count, row = sender, column =
 *    receiver; ranks grouped in blocks when there are too many) and each
 *    process's sent and received bytes and counts (Pipit's comm_matrix and
 *    comm_by_process);
 *  - histograms with numpy.histogram's semantics (equal bins over [lo, hi],
 *    the last bin closed; [x - 0.5, x + 0.5] when lo == hi): the message
 *    sizes (Pipit's message_histogram) and the communication over time
 *    (Pipit's comm_over_time: the send or receive times over the extent of
 *    all events, weighted by bytes or not);
 *  - the wait states of Scalasca per (sender, receiver) pair, from the MPI
 *    calls in which each message's send and receive happened (see
 *    ARI_EC_WAIT_DEFINITION).
 * Memory: the matrix is O(blocks^2 + ranks); the wait-state pairs O(pairs
 * with a wait state); nothing is proportional to the number of messages. */
#ifndef ARIADNE_EVENT_COMM_H
#define ARIADNE_EVENT_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* One matched message (message_chunks.h). Times in the trace's unit (ns). */
typedef struct ari_ec_message {
    int64_t src_container, dst_container; /* Thread containers */
    int32_t src_rank, dst_rank;
    int32_t src_thread, dst_thread;
    int64_t tag, comm, bytes;
    double send_time, recv_time;
} ari_ec_message;

/* ---- the communication matrix ---- */

#define ARI_EC_DEFAULT_MAX_RANKS 256
#define ARI_EC_MAX_RANKS         2048

typedef struct ari_ec_matrix {
    int nranks;
    int32_t *ranks; /* [nranks], ascending, distinct */
    int block;      /* ranks per block (1: one row per rank) */
    int nblocks;    /* ceil(nranks / block) */
    int64_t *bytes; /* [nblocks * nblocks], row = sending block */
    int64_t *count;
    int64_t *sent_bytes, *sent_count, *recv_bytes, *recv_count; /* [nranks] */
    int64_t total_bytes, total_count;
    int64_t unknown; /* messages whose rank is not in ranks (not counted) */
} ari_ec_matrix;

/* Prepares an empty matrix over ranks[0..nranks) (any order; duplicates
 * are merged), in blocks of ceil(nranks / max_ranks) consecutive ranks
 * (max_ranks in 1..ARI_EC_MAX_RANKS). 0, or -1 with err set. */
int ari_ec_matrix_init(ari_ec_matrix *m, const int32_t *ranks, int nranks, int max_ranks, ari_error *err);
/* Adds `count` messages of `bytes` bytes in all from src to dst. */
void ari_ec_matrix_add(ari_ec_matrix *m, int32_t src, int32_t dst, int64_t bytes, int64_t count);
/* The index of rank r in m->ranks, -1 when absent. */
int ari_ec_rank_index(const ari_ec_matrix *m, int32_t r);
void ari_ec_matrix_free(ari_ec_matrix *m);

/* ---- histograms (numpy.histogram) ---- */

#define ARI_EC_MAX_BINS 1000

typedef struct ari_ec_hist {
    int bins;
    double *edges;  /* [bins + 1] as numpy.linspace(lo, hi, bins + 1) */
    double *values; /* [bins] summed weights */
} ari_ec_hist;

/* Equal bins over [lo, hi] (lo == hi: [lo - 0.5, hi + 0.5], as numpy);
 * bins in 1..ARI_EC_MAX_BINS, lo <= hi finite. 0, or -1 with err set. */
int ari_ec_hist_init(ari_ec_hist *h, int bins, double lo, double hi, ari_error *err);
/* Adds weight w in the bin of x; x outside [edges[0], edges[bins]] or NaN
 * is left out (numpy with a range). Returns the bin, or -1. */
int ari_ec_hist_add(ari_ec_hist *h, double x, double w);
void ari_ec_hist_free(ari_ec_hist *h);

/* ---- wait states (Scalasca) ---- */

#define ARI_EC_WAIT_DEFINITION                                                                               \
    "Scalasca's point-to-point wait states, from the MPI call (the innermost Function state) in which "      \
    "each matched message's send and receive happened on their locations. Late Sender: the receiving "       \
    "call (MPI_Recv, MPI_Sendrecv, MPI_Probe or MPI_Wait*, completing a non-blocking receive) was "          \
    "entered before the matching send's call was entered; waiting time = send call enter - receive "         \
    "call enter, counted for the receiver. Late Receiver: a blocking send (MPI_Send or MPI_Ssend) was "      \
    "entered before the receiving call was entered and was still running then; waiting time = receive "      \
    "call enter - send call enter, counted for the sender. Messages whose calls are not MPI calls "          \
    "(Projections, HPCToolkit traces) have no wait state."

/* The call in which one side of a message happened. */
typedef struct ari_ec_call {
    int found; /* 0: the side's time is in no Function state */
    double enter, leave;
    const char *name; /* the region's name */
} ari_ec_call;

typedef struct ari_ec_wait {
    int64_t late_sender_count, late_receiver_count;
    double late_sender_time, late_receiver_time;
} ari_ec_wait;

/* Whether the call named `name` can wait for a message to arrive (Late
 * Sender) / is a blocking send (Late Receiver). */
int ari_ec_is_receive_call(const char *name);
int ari_ec_is_blocking_send(const char *name);
/* The wait states of one message: *out zeroed, then its late-sender or
 * late-receiver count 1 and time. Returns 1 when it has one, else 0. */
int ari_ec_wait_classify(const ari_ec_call *send, const ari_ec_call *recv, ari_ec_wait *out);

typedef struct ari_ec_wait_pair {
    int32_t sender, receiver;
    ari_ec_wait w;
} ari_ec_wait_pair;

/* The wait states per (sender, receiver) rank pair. */
typedef struct ari_ec_waits {
    ari_ec_wait_pair *slots; /* open addressing; used when w has a count */
    size_t cap, n;
    ari_ec_wait totals;
} ari_ec_waits;

void ari_ec_waits_init(ari_ec_waits *ws);
/* Adds one message's wait states (a zero *w is ignored). 0, or -1 (nomem). */
int ari_ec_waits_add(ari_ec_waits *ws, int32_t sender, int32_t receiver, const ari_ec_wait *w,
                     ari_error *err);
/* The pairs with a wait state, by (sender, receiver), into *out (malloc'd,
 * free it; NULL when n == 0). 0, or -1. */
int ari_ec_waits_sorted(const ari_ec_waits *ws, ari_ec_wait_pair **out, size_t *n, ari_error *err);
/* The per-rank sums of sorted pairs: a rank's late-sender figures are those
 * of the pairs it received in, its late-receiver figures those it sent in.
 * out[i] for ranks[i] (ascending ranks, nranks of them). */
void ari_ec_waits_by_rank(const ari_ec_wait_pair *pairs, size_t npairs, const int32_t *ranks, int nranks,
                          ari_ec_wait *out);
void ari_ec_waits_free(ari_ec_waits *ws);

#endif
