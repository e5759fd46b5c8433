/* stall_hook.h: a test hook that stops an import at a chosen point of its
 * progress, so that a test can kill the process in the middle of an import
 * deterministically (tests/api/crash.test.mjs) instead of racing it.
 *
 * ARIADNE_TEST_STALL_AT=<fraction> (0 < fraction < 1): the first progress
 * report of an import at or past the fraction prints one line
 *   ariadned: import stalled at <fraction> (ARIADNE_TEST_STALL_AT)
 * on stderr and then waits, polling *cancel every 10 ms, until the import
 * is cancelled (a stop signal or a server shutdown) or the process is
 * killed. Unset, it costs one comparison per progress report. */
#ifndef ARIADNE_STALL_HOOK_H
#define ARIADNE_STALL_HOOK_H

void ari_stall_hook(double fraction, const volatile int *cancel);

#endif
