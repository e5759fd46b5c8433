/* log.h: leveled logging to stderr, safe from any thread. */
#ifndef ARIADNE_LOG_H
#define ARIADNE_LOG_H

typedef enum ari_log_level {
    ARI_LOG_ERROR = 0,
    ARI_LOG_WARN,
    ARI_LOG_INFO,
    ARI_LOG_DEBUG
} ari_log_level;

void ari_log_set_level(ari_log_level level);
/* Parses "error", "warn", "info", "debug"; returns -1 if unknown. */
int ari_log_parse_level(const char *name, ari_log_level *out);
void ari_log(ari_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
