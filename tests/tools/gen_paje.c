/* gen_paje.c: writes a synthetic Paje trace for benchmarks: C worker
 * containers under one process container, each switching between a few
 * state values (Set) with a nested Push/Pop every tenth step, a variable
 * per worker, and links between workers. Time-ordered, so pj_dump reads
 * it as it is.
 *
 *   gen_paje --states N [--containers C] [--out FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char header[] =
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 3\n% Alias string\n% Type string\n% StartContainerType string\n"
    "% EndContainerType string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 4\n% Time date\n% Alias string\n% Type string\n% Container string\n"
    "% Name string\n%EndEventDef\n"
    "%EventDef PajeSetState 5\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "%EventDef PajePushState 6\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "%EventDef PajePopState 7\n% Time date\n% Type string\n% Container string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 8\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n"
    "%EventDef PajeStartLink 9\n% Time date\n% Type string\n% Container string\n% StartContainer string\n"
    "% Value string\n% Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 10\n% Time date\n% Type string\n% Container string\n% EndContainer string\n"
    "% Value string\n% Key string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 11\n% Time date\n% Name string\n% Type string\n%EndEventDef\n";

static const char *values[] = {"dgemm", "dtrsm", "dsyrk", "dpotrf", "Idle"};

int main(int argc, char **argv)
{
    long long states = 0;
    int containers = 64;
    const char *out = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--states") == 0)
            states = atoll(argv[i + 1]);
        else if (strcmp(argv[i], "--containers") == 0)
            containers = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
    }
    if (states <= 0 || containers <= 1) {
        fprintf(stderr, "usage: gen_paje --states N [--containers C>1] [--out FILE]\n");
        return 2;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        perror(out);
        return 1;
    }
    fputs(header, f);
    fputs("0 P 0 Process\n0 W P Worker\n1 S W State\n2 V W Load\n3 L P W W Transfer\n"
          "4 0 p0 P 0 \"node 0\"\n", f);
    for (int c = 0; c < containers; c++)
        fprintf(f, "4 0 w%d W p0 \"worker %d\"\n", c, c);
    /* Each step gives every worker one Set (one state), and every tenth
     * step a Push/Pop pair (one more state) and a variable update. */
    long long written = 0, key = 0;
    double t = 0;
    for (long long step = 0; written < states; step++) {
        for (int c = 0; c < containers && written < states; c++) {
            t += 0.001;
            fprintf(f, "5 %.6f S w%d %s\n", t, c, values[(step + c) % 5]);
            written++;
            /* Lines in time order: link start (t+.1), push (t+.2), pop and
             * variable (t+.4), link end (t+.5), all before the next t. */
            int link = step % 50 == 0 && c + 1 < containers;
            if (link)
                fprintf(f, "9 %.6f L p0 w%d data k%lld\n", t + 0.0001, c, key);
            if (step % 10 == 0 && written < states) {
                fprintf(f, "6 %.6f S w%d Callback\n7 %.6f S w%d\n", t + 0.0002, c, t + 0.0004, c);
                fprintf(f, "8 %.6f V w%d %lld\n", t + 0.0004, c, step % 97);
                written++;
            }
            if (link)
                fprintf(f, "10 %.6f L p0 w%d data k%lld\n", t + 0.0005, c + 1, key++);
        }
    }
    t += 0.001;
    for (int c = 0; c < containers; c++)
        fprintf(f, "11 %.6f w%d W\n", t, c);
    if (out && fclose(f) != 0) {
        perror(out);
        return 1;
    }
    return 0;
}
