/* proc.h: naming one process of one boot, which a pid alone does not (pids
 * are reused; a restarted server in a container is PID 1 again). */
#ifndef ARIADNE_PROC_H
#define ARIADNE_PROC_H

#include <stddef.h>
#include <stdint.h>

/* The start time of process `pid` in clock ticks since boot (field 22 of
 * /proc/<pid>/stat), or -1 if there is no such process. */
int64_t ari_process_start(int64_t pid);
/* "<boot id>/<pid>/<start time>", or "" if there is no such process. */
void ari_process_key(int64_t pid, char *out, size_t size);

#endif
