/* fuzz_starvz.c: libFuzzer target for the StarVZ CSV set import
 * (format_starvz.c over csv.c and rec.c), through the store's trace and
 * task writers, inside a transaction rolled back after each input.
 *
 * The input is split on FUZZ_FILE_MARK (fuzz_files.h); the parts become,
 * in order, the files of `names` below (paje.worker_state.csv first, which
 * the format needs to claim the set). A clean error is fine; a crash,
 * leak, hang or sanitizer report is a bug.
 */
#include "fuzz_files.h"
#include "import/format_starvz.h"
#include "store/store_internal.h"
#include "store/trace_writer.h"

static const char *const names[] = {
    "paje.worker_state.csv", "entities.csv", "paje.link.csv", "paje.variable.csv", "rec.tasks.csv",
    "rec.data_handles.csv", "dag.csv", "atree.csv", "paje.comm_state.csv", "paje.memory_state.csv",
    "paje.other_state.csv", "paje.events.csv", "conf.txt",
};
#define NNAMES (sizeof names / sizeof names[0])

static ari_store *store;

static void open_store(void)
{
    char dir[] = "/tmp/ariadne-fuzz-XXXXXX", path[64];
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/f.db", dir);
    ari_error err;
    store = ari_store_open(path, &err);
    if (!store)
        abort();
}

static void import_set(ari_import_file *files, size_t n)
{
    size_t idx[NNAMES];
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    ari_group g = {0};
    if (!ari_format_starvz.claim(files, idx, n, &g))
        return;
    ari_error err = {0};
    if (ari_store_begin(store, &err) < 0)
        abort();
    ari_writer_progress progress = {0};
    ari_trace_writer *w = ari_trace_writer_begin(store, "fuzz", "tasks", "starvz", "s", &progress, 0, &err);
    if (!w)
        abort();
    if (ari_format_starvz.import(w, files, &g, &err) == 0)
        ari_trace_writer_finish(w, NULL, &err);
    ari_trace_writer_free(w);
    ari_store_rollback(store);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!store)
        open_store();
    fuzz_part parts[NNAMES];
    size_t n = fuzz_split(data, size, parts, NNAMES);
    char paths[NNAMES][4096], display[NNAMES][64];
    ari_import_file files[NNAMES];
    size_t written = 0;
    for (size_t i = 0; i < n; i++) {
        if (fuzz_write(names[i], parts[i].data, parts[i].size, paths[i], sizeof paths[i]) < 0)
            break;
        snprintf(display[i], sizeof display[i], "run/%s", names[i]);
        files[i] = (ari_import_file){paths[i], display[i], "run", parts[i].size, 0};
        written++;
    }
    if (written == n)
        import_set(files, n);
    fuzz_empty(fuzz_dir());
    return 0;
}
