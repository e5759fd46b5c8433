/* fuzz_archive.c: libFuzzer target for archive unpacking (archive.c:
 * libarchive's tar, zip and 7-zip readers behind gzip, xz, zstd... filters,
 * and our path checks). Each input is probed with ari_archive_detect, then
 * extracted into a private directory with a 1 MiB cap, which is emptied
 * afterwards. Nothing may be written outside that directory: a sentinel
 * directory beside it must stay empty. A clean error is fine.
 */
#include "fuzz_files.h"
#include "ingest/archive.h"

#define CAP (1u << 20)

static const char *side_dir(void)
{
    static char dir[4160];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/side", fuzz_dir());
        if (mkdir(dir, 0700) != 0)
            abort();
    }
    return dir;
}

static int is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096], out[4160];
    const char *side = side_dir();
    snprintf(out, sizeof out, "%s/side/out", fuzz_dir());
    if (fuzz_write("side/in.archive", data, size, path, sizeof path) == 0 && mkdir(out, 0700) == 0) {
        ari_error err;
        if (ari_archive_detect(path, &err) > 0)
            ari_archive_extract(path, out, CAP, &err);
        unlink(path);
        fuzz_empty(out);
        rmdir(out);
        if (!is_empty(side))
            abort(); /* an entry escaped the extraction directory */
    }
    fuzz_empty(side);
    return 0;
}
