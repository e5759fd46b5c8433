/* proc.c: process identities from /proc (see proc.h). */
#include "util/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t ari_process_start(int64_t pid)
{
    char path[64], stat[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    /* field 22, counted after the command name's ')' (which may hold spaces) */
    char *p = strrchr(stat, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoll(p + 1, NULL, 10) : -1;
}

void ari_process_key(int64_t pid, char *out, size_t size)
{
    char boot[64] = "";
    out[0] = '\0';
    int64_t start = ari_process_start(pid);
    if (start < 0)
        return;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\n")] = '\0';
    }
    snprintf(out, size, "%s/%lld/%lld", boot, (long long)pid, (long long)start);
}
