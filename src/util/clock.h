/* clock.h: the monotonic clock, in seconds. */
#ifndef ARIADNE_CLOCK_H
#define ARIADNE_CLOCK_H

/* Seconds of CLOCK_MONOTONIC: for durations and deadlines, not dates. */
double ari_now(void);

#endif
