/* bench_read.c -- how fast a trace reader goes: reads FILE in FORMAT five
 * times and prints the best time and the rate in MB/s and rows/s.
 *
 * Usage: bench_read FORMAT FILE */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <sys/stat.h>

#include "traces.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_read FORMAT FILE\n");
        return 2;
    }
    int f = trace_format_parse(argv[1]);
    struct stat st;
    if (f < 0 || stat(argv[2], &st) != 0) {
        fprintf(stderr, "bench_read: bad format or file\n");
        return 2;
    }
    double best = 1e30;
    size_t jobs = 0;
    for (int i = 0; i < 5; i++) {
        struct trace *t;
        struct trace_error err = {0};
        double t0 = now();
        if (trace_read(argv[2], (enum trace_format)f, NULL, &t, &err) != 0) {
            fprintf(stderr, "bench_read: %s:%ld: %s\n", err.source, err.line,
                    err.text);
            return 1;
        }
        double dt = now() - t0;
        jobs = t->njobs;
        trace_destroy(t);
        if (dt < best)
            best = dt;
    }
    double mb = (double)st.st_size / 1e6;
    printf("   %-9s %7zu rows, %5.1f MB: %6.3f s  %6.0f MB/s  %5.2f M rows/s\n",
           argv[1], jobs, mb, best, mb / best, (double)jobs / best / 1e6);
    return 0;
}
