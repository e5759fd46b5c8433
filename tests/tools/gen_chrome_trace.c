/* gen_chrome_trace.c: writes a synthetic Kineto-style Chrome trace for the
 * data movement benchmark: N events (runtime calls on 4 host threads,
 * kernels and copies on 4 GPU streams, with flows), deterministic.
 *   gen_chrome_trace EVENTS OUT.json */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_chrome_trace EVENTS OUT.json\n");
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    FILE *f = fopen(argv[2], "w");
    if (n <= 0 || !f) {
        fprintf(stderr, "gen_chrome_trace: bad count or cannot write %s\n", argv[2]);
        return 1;
    }
    fprintf(f, "{\"schemaVersion\":1,\"deviceProperties\":[");
    for (int g = 0; g < 4; g++)
        fprintf(f, "%s{\"id\":%d,\"name\":\"Bench GPU\",\"totalGlobalMem\":17179869184,\"numSms\":80}", g ? "," : "", g);
    fprintf(f, "],\n\"traceEvents\":[\n");
    unsigned long long t = 1000000;
    for (long i = 0; i < n; i++) {
        int gpu = (int)(i % 4), kind = (int)(i % 3);
        unsigned dur = 5 + (unsigned)(i * 7919 % 200);
        if (i)
            fputs(",\n", f);
        if (kind == 0)
            fprintf(f, "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4242, "
                       "\"tid\": %d, \"ts\": %llu, \"dur\": %u, \"args\": {\"External id\": %ld, \"cbid\": 211, "
                       "\"correlation\": %ld}}", 100 + gpu, t, dur, i, i);
        else if (kind == 1)
            fprintf(f, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel_%d(float const*, float*, int)\", "
                       "\"pid\": %d, \"tid\": 7, \"ts\": %llu, \"dur\": %u, \"args\": {\"External id\": %ld, \"device\": "
                       "%d, \"context\": 1, \"stream\": 7, \"correlation\": %ld, \"registers per thread\": 32, "
                       "\"grid\": [512, 512, 1], \"block\": [32, 32, 1]}}", (int)(i % 5), gpu, t, dur, i, gpu, i);
        else
            fprintf(f, "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy %s (Pinned -> Device)\", \"pid\": %d, "
                       "\"tid\": 7, \"ts\": %llu, \"dur\": %u, \"args\": {\"External id\": %ld, \"device\": %d, "
                       "\"context\": 1, \"stream\": 7, \"correlation\": %ld, \"bytes\": %u, "
                       "\"memory bandwidth (GB/s)\": %.3f}}", i % 2 ? "HtoD" : "DtoH", gpu, t, dur, i, gpu, i,
                    dur * 12000u, dur * 12000.0 / dur / 1000.0);
        t += 3 + (unsigned long long)(i % 11);
    }
    fprintf(f, "\n],\n\"traceName\": \"bench\"}\n");
    return fclose(f) == 0 ? 0 : 1;
}
