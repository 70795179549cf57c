/* test_generate.c -- the workload generator (traces/generate.c).
 *
 * Statistical checks run with fixed seeds, so each is deterministic; the
 * tolerances are still chosen so that a fresh seed would pass with
 * overwhelming probability (5 to 6 standard deviations of the estimate, or
 * a chi-square quantile of 0.999), i.e. they test the math, not the seed.
 * With N draws of a variable of coefficient of variation c, the sample mean
 * has a relative standard deviation of c / sqrt(N). */
#include <criterion/criterion.h>
#include "traces.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HETSIM_SOURCE_DIR
#define HETSIM_SOURCE_DIR "."
#endif
#define MATRIX HETSIM_SOURCE_DIR "/traces/gavel/simulation_throughputs.json"

static struct trace *draw(const struct trace_gen_spec *s)
{
    struct trace *t = NULL;
    struct trace_error err = {0};
    int rc = trace_generate(s, &t, &err);
    cr_assert_eq(rc, 0, "trace_generate: %d %s", rc, err.text);
    cr_assert_not_null(t);
    cr_assert_eq(t->njobs, s->njobs);
    return t;
}

/* Mean and coefficient of variation of the gaps between arrivals (the
 * first gap from time 0). */
static void gap_stats(const struct trace *t, double *mean, double *cv)
{
    double sum = 0, sum2 = 0, prev = 0;
    for (size_t i = 0; i < t->njobs; i++) {
        double g = t->jobs[i].submit_time - prev;
        cr_assert(g >= 0, "submit times go back at job %zu", i);
        prev = t->jobs[i].submit_time;
        sum += g;
        sum2 += g * g;
    }
    double n = (double)t->njobs;
    *mean = sum / n;
    *cv = sqrt((sum2 / n - *mean * *mean) * n / (n - 1)) / *mean;
}

static double mean_duration(const struct trace *t)
{
    double sum = 0;
    for (size_t i = 0; i < t->njobs; i++)
        sum += t->jobs[i].duration;
    return sum / (double)t->njobs;
}

static struct trace_gen_spec spec_of(size_t njobs, uint64_t seed)
{
    struct trace_gen_spec s;
    trace_gen_defaults(&s);
    s.njobs = njobs;
    s.seed = seed;
    return s;
}

/* ---- arrivals ----------------------------------------------------------- */

/* Exponential gaps: the mean has relative sd 1/sqrt(N) = 0.0032 at N =
 * 100,000, and the sample CV (delta method, exponential moments) also
 * 1/sqrt(N); 0.02 is over 6 sd for both. */
Test(generate, poisson_gaps_have_mean_one_over_rate_and_cv_one)
{
    struct trace_gen_spec s = spec_of(100000, 11);
    s.rate = 0.25;
    struct trace *t = draw(&s);
    double mean, cv;
    gap_stats(t, &mean, &cv);
    cr_expect(fabs(mean * s.rate - 1) < 0.02, "mean gap %g, want 4", mean);
    cr_expect(fabs(cv - 1) < 0.02, "CV %g, want 1", cv);
    trace_destroy(t);
}

Test(generate, mmpp_states_keep_the_mean_rate_and_the_burst_fraction)
{
    struct trace_gen_mmpp m = {10, 0.1, 3600};
    double rate[2], sojourn[2];
    trace_gen_mmpp_states(&m, 0.5, rate, sojourn);
    /* By hand: low = 0.5 / (0.9 + 0.1 * 10) = 0.5 / 1.9. */
    cr_expect(fabs(rate[0] - 0.5 / 1.9) < 1e-15);
    cr_expect(fabs(rate[1] - 5 / 1.9) < 1e-15);
    cr_expect(fabs(sojourn[1] - 3600) < 1e-12);
    cr_expect(fabs(sojourn[0] - 32400) < 1e-9);
    double f = sojourn[1] / (sojourn[0] + sojourn[1]);
    cr_expect(fabs(f - 0.1) < 1e-15);
    cr_expect(fabs((1 - f) * rate[0] + f * rate[1] - 0.5) < 1e-15);
}

/* Rate 1/s, ratio 10, 10% of the time in bursts of mean 1 s. The count of
 * arrivals has an index of dispersion of 1 + 2 (lh - ll)^2 f (1 - f) /
 * ((q01 + q10) rate) = 4.64 (ll = 1/1.9, lh = 10/1.9, q = 1/9 and 1 per
 * s), so the rate measured over N = 200,000 arrivals has a relative sd of
 * sqrt(4.64 / N) = 0.0048: 0.03 is over 6 sd. A simulation of the same
 * process (1e6 arrivals) gives a gap CV of 1.43; Poisson would give 1 +-
 * 0.002 here, so CV > 1.25 tells the two apart by a wide margin. */
Test(generate, mmpp_gaps_are_burstier_than_poisson_at_the_same_mean_rate)
{
    struct trace_gen_spec s = spec_of(200000, 5);
    s.arrivals = TRACE_GEN_MMPP;
    s.rate = 1;
    s.mmpp = (struct trace_gen_mmpp){10, 0.1, 1};
    struct trace *t = draw(&s);
    double mean, cv;
    gap_stats(t, &mean, &cv);
    cr_expect(fabs(1 / mean - 1) < 0.03, "mean rate %g, want 1", 1 / mean);
    cr_expect(cv > 1.25, "CV %g, want well above 1", cv);
    trace_destroy(t);
}

/* ---- durations ---------------------------------------------------------- */

/* N = 100,000: exponential (CV 1) sd 0.32%, tolerance 2%; lognormal
 * sigma 0.5 (CV^2 = e^0.25 - 1 = 0.284) sd 0.17%, tolerance 1.5%; Pareto
 * alpha 3 (CV^2 = 1/(alpha (alpha - 2)) = 1/3) sd 0.18%, tolerance 2% for
 * its heavy tail (no fourth moment); resample of {1, 2, 3, 4} (CV 0.447)
 * sd 0.14%, tolerance 1%. */
static void expect_mean(const char *text, double want, double tolerance)
{
    struct trace_gen_spec s = spec_of(100000, 3);
    struct trace_error err = {0};
    cr_assert_eq(trace_gen_parse_durations(text, &s.durations, &err), 0,
                 "%s: %s", text, err.text);
    cr_expect(fabs(trace_gen_mean_duration(&s.durations) - want) < 1e-12 * want,
              "%s: theory %g, want %g", text,
              trace_gen_mean_duration(&s.durations), want);
    struct trace *t = draw(&s);
    double mean = mean_duration(t);
    cr_expect(fabs(mean / want - 1) < tolerance,
              "%s: sample mean %g, "
              "theory %g",
              text, mean, want);
    trace_destroy(t);
}

Test(generate, exponential_durations_have_the_mean_asked)
{
    expect_mean("exp:3600", 3600, 0.02);
}

Test(generate, lognormal_durations_have_mean_exp_mu_plus_half_sigma_squared)
{
    expect_mean("lognormal:7,0.5", exp(7.125), 0.015);
}

Test(generate, pareto_durations_have_mean_alpha_xmin_over_alpha_minus_one)
{
    expect_mean("pareto:3,2", 3, 0.02);
    struct trace_gen_durations d;
    cr_assert_eq(trace_gen_parse_durations("pareto:1,5", &d, NULL), 0);
    cr_expect(isinf(trace_gen_mean_duration(&d)));
}

Test(generate, resampled_durations_come_from_the_samples)
{
    static const double samples[] = {1, 2, 3, 4};
    struct trace_gen_spec s = spec_of(100000, 9);
    cr_assert_eq(
        trace_gen_parse_durations("resample:x.csv", &s.durations, NULL), 0);
    cr_expect_str_eq(s.durations.path, "x.csv");
    s.durations.samples = samples;
    s.durations.nsamples = 4;
    cr_expect(trace_gen_mean_duration(&s.durations) == 2.5);
    struct trace *t = draw(&s);
    for (size_t i = 0; i < t->njobs; i++) {
        double d = t->jobs[i].duration;
        cr_assert(d == 1 || d == 2 || d == 3 || d == 4, "drew %g", d);
    }
    cr_expect(fabs(mean_duration(t) / 2.5 - 1) < 0.01);
    trace_destroy(t);
}

/* ---- GPU counts --------------------------------------------------------- */

/* Pearson's chi-square over 4 bins has 3 degrees of freedom; its 0.999
 * quantile is 16.27. */
Test(generate, gpu_counts_follow_the_distribution)
{
    struct trace_gen_spec s = spec_of(100000, 21);
    cr_assert_eq(trace_gen_parse_gpus("1:0.7,2:0.1,4:0.1,8:0.1", &s.gpus, NULL),
                 0);
    struct trace *t = draw(&s);
    static const int32_t count[4] = {1, 2, 4, 8};
    static const double p[4] = {0.7, 0.1, 0.1, 0.1};
    double seen[4] = {0};
    for (size_t i = 0; i < t->njobs; i++) {
        int k = 0;
        while (k < 4 && count[k] != t->jobs[i].num_gpus)
            k++;
        cr_assert(k < 4, "drew %d GPUs", (int)t->jobs[i].num_gpus);
        seen[k]++;
    }
    double chi2 = 0;
    for (int k = 0; k < 4; k++) {
        double want = p[k] * (double)t->njobs;
        chi2 += (seen[k] - want) * (seen[k] - want) / want;
    }
    cr_expect(chi2 < 16.27, "chi-square %g over 3 degrees of freedom", chi2);
    trace_destroy(t);
}

Test(generate, gpu_weights_are_normalised)
{
    struct trace_gen_gpus g;
    cr_assert_eq(trace_gen_parse_gpus("1:7,2:1,4:1,8:1", &g, NULL), 0);
    cr_assert_eq(g.n, 4);
    cr_expect(fabs(g.prob[0] - 0.7) < 1e-15);
    cr_expect(fabs(trace_gen_mean_gpus(&g) - 2.1) < 1e-14);
}

Test(generate, bad_distributions_are_refused_with_a_reason)
{
    static const char *const durations[] = {
        "exp:0",        "exp:-1",        "exp:",       "exp:1,2",
        "lognormal:1",  "lognormal:1,0", "pareto:0,1", "pareto:2,-1",
        "pareto:2,nan", "weibull:1,2",   "resample:",  "3600"};
    static const char *const gpus[] = {
        "", "1", "1:0", "0:1", "1.5:1", "1:1,1:2", "1:1,", "2:-1", "1:x"};
    struct trace_gen_durations d;
    struct trace_gen_gpus g;
    struct trace_error err;
    for (size_t i = 0; i < sizeof durations / sizeof *durations; i++) {
        err.text[0] = '\0';
        cr_expect_eq(trace_gen_parse_durations(durations[i], &d, &err),
                     TRACE_EPARSE, "%s accepted", durations[i]);
        cr_expect(err.text[0] != '\0', "%s: no reason", durations[i]);
    }
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++)
        cr_expect_eq(trace_gen_parse_gpus(gpus[i], &g, &err), TRACE_EPARSE,
                     "\"%s\" accepted", gpus[i]);
}

/* ---- the rate of a load, and checks ------------------------------------ */

/* By hand: E[num_gpus] = 0.5 * 1 + 0.5 * 2 = 1.5, E[duration] = 3600 s,
 * gavel-108's capacity 36 + 36 * 0.943 + 36 * 0.297 = 80.64 V100s:
 * rate = 0.5 * 80.64 / (1.5 * 3600) = 40.32 / 5400 = 0.0074666... */
Test(generate, load_sets_rate_to_rho_capacity_over_mean_gpu_seconds)
{
    struct trace_gen_spec s = spec_of(10, 1);
    cr_assert_eq(trace_gen_parse_gpus("1:0.5,2:0.5", &s.gpus, NULL), 0);
    double rate = trace_gen_rate_for_load(&s, 0.5, 80.64);
    cr_expect(fabs(rate - 0.0074666666666666667) < 1e-17, "rate %.17g", rate);
    cr_assert_eq(trace_gen_parse_durations("pareto:0.9,1", &s.durations, NULL),
                 0);
    cr_expect_eq(trace_gen_rate_for_load(&s, 0.5, 80.64), 0);
}

Test(generate, impossible_specs_are_refused)
{
    struct trace_gen_spec s = spec_of(10, 1);
    struct trace *t = NULL;
    cr_expect_eq(trace_gen_check(&s, NULL), 0);
    s.njobs = 0;
    cr_expect_eq(trace_generate(&s, &t, NULL), TRACE_EPARSE);
    cr_expect_null(t);
    s = spec_of(10, 1);
    s.rate = 0;
    cr_expect_eq(trace_gen_check(&s, NULL), TRACE_EPARSE);
    s = spec_of(10, 1);
    s.arrivals = TRACE_GEN_MMPP;
    s.mmpp.high_fraction = 1;
    cr_expect_eq(trace_gen_check(&s, NULL), TRACE_EPARSE);
    s.mmpp.high_fraction = 0.5;
    s.mmpp.rate_ratio = 0.5;
    cr_expect_eq(trace_gen_check(&s, NULL), TRACE_EPARSE);
    s = spec_of(10, 1);
    s.durations.kind = TRACE_GEN_RESAMPLE; /* no samples */
    cr_expect_eq(trace_gen_check(&s, NULL), TRACE_EPARSE);
}

/* ---- determinism and the jobs' fields ---------------------------------- */

static int same_jobs(const struct trace *a, const struct trace *b)
{
    if (a->njobs != b->njobs)
        return 0;
    for (size_t i = 0; i < a->njobs; i++) {
        const struct trace_job *x = &a->jobs[i], *y = &b->jobs[i];
        if (memcmp(&x->submit_time, &y->submit_time, sizeof(double)) ||
            memcmp(&x->duration, &y->duration, sizeof(double)) ||
            x->num_gpus != y->num_gpus || x->iterations != y->iterations ||
            strcmp(trace_str(a, x->id), trace_str(b, y->id)) ||
            strcmp(trace_str(a, x->job_type), trace_str(b, y->job_type)))
            return 0;
    }
    return 1;
}

Test(generate, same_seed_gives_the_same_trace_and_another_seed_another)
{
    struct trace_gen_spec s = spec_of(2000, 42);
    s.arrivals = TRACE_GEN_MMPP;
    cr_assert_eq(trace_gen_parse_gpus("1:3,4:1", &s.gpus, NULL), 0);
    struct trace *a = draw(&s), *b = draw(&s);
    s.seed = 43;
    struct trace *c = draw(&s);
    cr_expect(same_jobs(a, b));
    cr_expect(!same_jobs(a, c));
    cr_expect(a->jobs[0].submit_time != c->jobs[0].submit_time);
    trace_destroy(a);
    trace_destroy(b);
    trace_destroy(c);
}

Test(generate, jobs_are_numbered_in_arrival_order_with_csv_lines)
{
    struct trace_gen_spec s = spec_of(5, 1);
    struct trace *t = draw(&s);
    cr_expect_eq(t->format, TRACE_FMT_NATIVE);
    cr_expect_str_eq(trace_str(t, t->jobs[0].id), "job-1");
    cr_expect_str_eq(trace_str(t, t->jobs[4].id), "job-5");
    for (size_t i = 0; i < t->njobs; i++) {
        cr_expect_eq(t->jobs[i].line, i + 2);
        cr_expect(t->jobs[i].duration > 0);
        cr_expect_eq(t->jobs[i].job_type, TRACE_NOSTR);
        cr_expect_eq(t->jobs[i].iterations, -1);
        if (i)
            cr_expect(t->jobs[i].submit_time >= t->jobs[i - 1].submit_time);
    }
    trace_destroy(t);
}

/* ---- job types from a throughput matrix -------------------------------- */

Test(generate, job_types_are_measured_at_the_gpu_count_and_set_iterations)
{
    struct trace_throughputs *m = NULL;
    struct trace_error err = {0};
    cr_assert_eq(trace_throughputs_load(MATRIX, &m, &err), 0, "%s", err.text);
    struct trace_gen_spec s = spec_of(3000, 8);
    cr_assert_eq(trace_gen_parse_gpus("1:1,2:1,4:1,8:1", &s.gpus, NULL), 0);
    s.matrix = m;
    struct trace *t = draw(&s);
    size_t ntypes = 0;
    uint32_t seen[64];
    for (size_t i = 0; i < t->njobs; i++) {
        const struct trace_job *j = &t->jobs[i];
        double thr = 0;
        cr_assert_eq(trace_throughput(m, "v100", trace_str(t, j->job_type),
                                      j->num_gpus, 0, &thr),
                     0, "job %zu: %s at %d GPUs is not measured", i,
                     trace_str(t, j->job_type), (int)j->num_gpus);
        cr_assert(thr > 0);
        double want = fmax(1, nearbyint(j->duration * thr));
        cr_expect_eq((double)j->iterations, want, "job %zu", i);
        size_t k = 0;
        while (k < ntypes && seen[k] != j->job_type)
            k++;
        if (k == ntypes && ntypes < 64)
            seen[ntypes++] = j->job_type;
    }
    /* Gavel measured 26 job types; drawn uniformly, 3000 jobs see all
     * those measured at one GPU or more. */
    cr_expect(ntypes >= 20, "only %zu job types drawn", ntypes);
    trace_destroy(t);
    s.gpus.count[0] = 16; /* Gavel measured nothing at 16 GPUs */
    cr_expect_eq(trace_generate(&s, &t, &err), TRACE_EPARSE);
    cr_expect(strstr(err.text, "16 GPUs") != NULL, "%s", err.text);
    trace_throughputs_destroy(m);
}
