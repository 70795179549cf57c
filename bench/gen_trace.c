/* gen_trace.c -- writes the benchmark trace: N one-GPU jobs with Poisson
 * arrivals and exponential durations, at offered load RHO on G GPUs.
 * (The general generator, `hetsim trace generate`, is the trace issue's.)
 *
 * Usage: gen_trace N GPUS RHO MEAN_DURATION_S SEED > trace.csv
 *
 * The scale bench pipes 100M rows from here into hetsim, so the rows are
 * formatted by hand into a large buffer: printf's "%.3f" took 5.4 s of
 * the 10M rows' 6 s. The output is byte for byte printf's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

enum { OUT_CAP = 1 << 18, ROW_MAX = 96 };

/* Writes V in decimal, backwards, ending before END; the start. */
static char *put_u64(char *end, unsigned long long v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* Appends X as printf's "%.3f" does (X >= 0): the exact binary value
 * rounded to milliseconds, ties to even. x * 1000 is within 2^-12 of the
 * exact product below 2^40, so when its fraction is further than 1e-3
 * from one half the rounding is the exact value's; otherwise printf
 * decides. */
static char *put_millis(char *p, double x)
{
    double m = x * 1000, f = m - floor(m);
    if (!(m < 1099511627776.0) || fabs(f - 0.5) < 1e-3)
        return p + sprintf(p, "%.3f", x);
    unsigned long long k = (unsigned long long)floor(m) + (f > 0.5);
    char digits[24], *end = digits + sizeof digits, *s = put_u64(end, k / 1000);
    size_t len = (size_t)(end - s);
    memcpy(p, s, len);
    p += len;
    unsigned ms = (unsigned)(k % 1000);
    p[0] = '.';
    p[1] = (char)('0' + ms / 100);
    p[2] = (char)('0' + ms / 10 % 10);
    p[3] = (char)('0' + ms % 10);
    return p + 4;
}

static int flush(const char *buf, size_t len)
{
    return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: gen_trace N GPUS RHO MEAN_DURATION_S SEED\n");
        return 2;
    }
    long n = atol(argv[1]);
    double gpus = atof(argv[2]), rho = atof(argv[3]), mean = atof(argv[4]);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, strtoul(argv[5], NULL, 10));
    double rate = rho * gpus / mean, t = 0;
    static char out[OUT_CAP + ROW_MAX];
    size_t len = (size_t)sprintf(out, "job_id,submit_time,num_gpus,duration\n");
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        t += gsl_ran_exponential(r, 1 / rate);
        /* Millisecond times, as real traces record them; never 0 s long. */
        double d = gsl_ran_exponential(r, mean);
        char *p = out + len, digits[24], *end = digits + sizeof digits;
        char *s = put_u64(end, (unsigned long long)i);
        *p++ = 'b';
        memcpy(p, s, (size_t)(end - s));
        p += end - s;
        *p++ = ',';
        p = put_millis(p, t);
        memcpy(p, ",1,", 3);
        p = put_millis(p + 3, d < 0.001 ? 0.001 : d);
        *p++ = '\n';
        len = (size_t)(p - out);
        if (len >= OUT_CAP) {
            rc = flush(out, len);
            len = 0;
        }
    }
    if (rc == 0)
        rc = flush(out, len);
    if (rc == 0 && fflush(stdout) != 0)
        rc = -1;
    gsl_rng_free(r);
    if (rc != 0) {
        perror("gen_trace: write");
        return 1;
    }
    return 0;
}
