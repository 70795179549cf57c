/* gen_trace.c -- writes the benchmark trace: N one-GPU jobs with Poisson
 * arrivals and exponential durations, at offered load RHO on G GPUs.
 * (The general generator, `hetsim trace generate`, is the trace issue's.)
 *
 * Usage: gen_trace N GPUS RHO MEAN_DURATION_S SEED > trace.csv */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

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
    printf("job_id,submit_time,num_gpus,duration\n");
    for (long i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, 1 / rate);
        /* Millisecond times, as real traces record them; never 0 s long. */
        double d = gsl_ran_exponential(r, mean);
        printf("b%ld,%.3f,1,%.3f\n", i, t, d < 0.001 ? 0.001 : d);
    }
    gsl_rng_free(r);
    return 0;
}
