/* stall_hook.c: ARIADNE_TEST_STALL_AT, the import stall of the crash tests
 * (see stall_hook.h). */
#include "stall_hook.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static double stall_at = NAN; /* NAN: no stall */

static void read_env(void)
{
    const char *s = getenv("ARIADNE_TEST_STALL_AT");
    char *end;
    double v = s ? strtod(s, &end) : NAN;
    if (s && *end == '\0' && v > 0 && v < 1)
        stall_at = v;
}

void ari_stall_hook(double fraction, const volatile int *cancel)
{
    static int stalled;
    pthread_once(&once, read_env);
    if (isnan(stall_at) || fraction < stall_at || stalled)
        return;
    stalled = 1;
    fprintf(stderr, "ariadned: import stalled at %g (ARIADNE_TEST_STALL_AT)\n", stall_at);
    fflush(stderr);
    struct timespec tick = {0, 10 * 1000 * 1000};
    while (!*cancel)
        nanosleep(&tick, NULL);
}
