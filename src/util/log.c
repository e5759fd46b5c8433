/* log.c: leveled logging to stderr: "2026-11-21T20:18:57Z INFO message". */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static ari_log_level current_level = ARI_LOG_INFO;
static const char *level_names[] = {"error", "warn", "info", "debug"};

void ari_log_set_level(ari_log_level level)
{
    current_level = level;
}

int ari_log_parse_level(const char *name, ari_log_level *out)
{
    for (int i = 0; i <= ARI_LOG_DEBUG; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (ari_log_level)i;
            return 0;
        }
    }
    return -1;
}

void ari_log(ari_log_level level, const char *fmt, ...)
{
    if (level > current_level)
        return;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);

    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fprintf per line keeps lines whole across threads. */
    fprintf(stderr, "%s %-5s %s\n", stamp, level_names[level], line);
}
