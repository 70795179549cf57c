/* generate.c -- synthetic workloads: seeded arrivals, GPU counts, durations
 * and job types, returned as a struct trace so that one writer serves
 * `trace convert` and `trace generate`.
 *
 * Every draw comes from one gsl_rng (mt19937) in a fixed order per job:
 * arrival gap(s), GPU count, duration, job type. MMPP arrivals are exact:
 * in a state, the next arrival and the next state change are exponential
 * and memoryless, so when the change comes first the clock moves to it and
 * the arrival gap is drawn afresh in the new state. */
#include "traces_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

void trace_gen_defaults(struct trace_gen_spec *s)
{
    memset(s, 0, sizeof *s);
    s->seed = 1;
    s->njobs = 1000;
    s->rate = 1;
    s->arrivals = TRACE_GEN_POISSON;
    s->mmpp = (struct trace_gen_mmpp){10, 0.1, 3600};
    s->durations.kind = TRACE_GEN_EXP;
    s->durations.a = 3600;
    s->gpus.n = 1;
    s->gpus.count[0] = 1;
    s->gpus.prob[0] = 1;
    s->worker = "v100";
}

/* ---- parsing ----------------------------------------------------------- */

/* A finite number at *p ending at STOP or at the end; advances *p past it
 * (and past STOP). 0, or -1. */
static int take_number(const char **p, char stop, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*p, &end);
    if (end == *p || errno || !isfinite(v) || (*end && *end != stop))
        return -1;
    *out = v;
    *p = *end ? end + 1 : end;
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
bad(struct trace_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        memset(err, 0, sizeof *err);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return TRACE_EPARSE;
}

int trace_gen_parse_durations(const char *text, struct trace_gen_durations *d,
                              struct trace_error *err)
{
    memset(d, 0, sizeof *d);
    const char *p;
    if (strncmp(text, "resample:", 9) == 0) {
        d->kind = TRACE_GEN_RESAMPLE;
        d->path = text + 9;
        return *d->path ? 0
                        : bad(err,
                              "resample wants a trace file: "
                              "resample:FILE, got \"%s\"",
                              text);
    }
    if (strncmp(text, "exp:", 4) == 0) {
        p = text + 4;
        d->kind = TRACE_GEN_EXP;
        if (take_number(&p, '\0', &d->a) || !(d->a > 0))
            return bad(err, "exp wants a mean > 0: exp:MEAN, got \"%s\"", text);
        return 0;
    }
    int logn = strncmp(text, "lognormal:", 10) == 0;
    if (!logn && strncmp(text, "pareto:", 7) != 0)
        return bad(err,
                   "unknown distribution \"%s\" (choose from: "
                   "exp:MEAN, lognormal:MU,SIGMA, pareto:ALPHA,XMIN, "
                   "resample:FILE)",
                   text);
    p = text + (logn ? 10 : 7);
    d->kind = logn ? TRACE_GEN_LOGNORMAL : TRACE_GEN_PARETO;
    if (take_number(&p, ',', &d->a) || take_number(&p, '\0', &d->b) ||
        !(d->b > 0) || (!logn && !(d->a > 0)))
        return bad(err,
                   logn ? "lognormal wants MU,SIGMA with SIGMA > 0, "
                          "got \"%s\""
                        : "pareto wants ALPHA,XMIN, both > 0, got "
                          "\"%s\"",
                   text);
    return 0;
}

#define GPUS_RULE                                                              \
    "GPU counts want N:WEIGHT,N:WEIGHT,... with whole N >= 1, distinct, "      \
    "and weights > 0, got \"%s\""

int trace_gen_parse_gpus(const char *text, struct trace_gen_gpus *g,
                         struct trace_error *err)
{
    memset(g, 0, sizeof *g);
    double sum = 0;
    for (const char *p = text; *p;) {
        double n, w;
        if (g->n == TRACE_GEN_MAX_GPU_BINS || take_number(&p, ':', &n) ||
            take_number(&p, ',', &w) || !(n >= 1) || n > INT32_MAX ||
            n != floor(n) || !(w > 0))
            return bad(err, GPUS_RULE, text);
        for (size_t i = 0; i < g->n; i++)
            if (g->count[i] == (int32_t)n)
                return bad(err, GPUS_RULE, text);
        g->count[g->n] = (int32_t)n;
        g->prob[g->n++] = w;
        sum += w;
        if (!*p && p > text && p[-1] == ',')
            return bad(err, GPUS_RULE, text);
    }
    if (g->n == 0 || !isfinite(sum))
        return bad(err, GPUS_RULE, text);
    for (size_t i = 0; i < g->n; i++)
        g->prob[i] /= sum;
    return 0;
}

/* ---- checks and means -------------------------------------------------- */

/* Durations and times outside [1e-6 s, 1e15 s] are no workload (1e15 s is
 * 30 million years; readers refuse larger ones too), and no draw repeats
 * more than TRACE_GEN_MAX_TRIES times: generation always ends. */
#define TRACE_GEN_MIN_S 1e-6
#define TRACE_GEN_MAX_S 1e15
#define TRACE_GEN_MIN_STATE_S 1e-3
#define TRACE_GEN_MAX_TRIES 10000000L

static int check_durations(const struct trace_gen_durations *d,
                           struct trace_error *err)
{
    switch (d->kind) {
    case TRACE_GEN_EXP:
        if (!(d->a > 0 && isfinite(d->a)))
            return bad(err, "exp mean must be > 0");
        return d->a >= TRACE_GEN_MIN_S && d->a <= TRACE_GEN_MAX_S
                   ? 0
                   : bad(err, "exp:%g cannot give durations: the mean must "
                              "be 1e-6 to 1e15 s",
                         d->a);
    case TRACE_GEN_LOGNORMAL:
        if (!(isfinite(d->a) && d->b > 0 && isfinite(d->b)))
            return bad(err, "lognormal wants a finite mu and sigma > 0");
        /* Draws of exp(mu + sigma z) must land in (0, 1e15] s: with mu
         * outside [ln 1e-6, ln 1e15] or sigma above 20 almost none do,
         * and drawing would never end. */
        if (d->a < log(TRACE_GEN_MIN_S) || d->a > log(TRACE_GEN_MAX_S) ||
            d->b > 20)
            return bad(err, "lognormal:%g,%g cannot give durations: its "
                            "median e^mu must be 1e-6 to 1e15 s and sigma "
                            "at most 20",
                       d->a, d->b);
        return 0;
    case TRACE_GEN_PARETO:
        if (!(d->a > 0 && d->b > 0 && isfinite(d->a) && isfinite(d->b)))
            return bad(err, "pareto wants alpha > 0, xmin > 0");
        /* The median xmin * 2^(1/alpha) must be a duration. */
        if (d->b < TRACE_GEN_MIN_S ||
            log(d->b) + log(2) / d->a > log(TRACE_GEN_MAX_S))
            return bad(err, "pareto:%g,%g cannot give durations: its median "
                            "xmin * 2^(1/alpha) must be 1e-6 to 1e15 s",
                       d->a, d->b);
        return 0;
    case TRACE_GEN_RESAMPLE:
        if (!d->samples || d->nsamples == 0)
            return bad(err, "resample has no durations to draw from");
        for (size_t i = 0; i < d->nsamples; i++)
            if (!(d->samples[i] > 0) || !(d->samples[i] <= TRACE_GEN_MAX_S))
                return bad(err, "resample durations must be > 0 and at most "
                                "1e15 s");
        return 0;
    }
    return bad(err, "unknown duration distribution");
}

int trace_gen_check(const struct trace_gen_spec *s, struct trace_error *err)
{
    const struct trace_gen_mmpp *m = &s->mmpp;
    if (s->njobs < 1 || (uint64_t)s->njobs > UINT32_MAX)
        return bad(err, "the number of jobs must be 1 to 4294967295");
    if (!(s->rate > 0) || !isfinite(s->rate))
        return bad(err, "the arrival rate must be a finite number > 0");
    if (s->arrivals == TRACE_GEN_MMPP &&
        (!(m->rate_ratio >= 1) || !isfinite(m->rate_ratio) ||
         !(m->high_fraction > 0) || !(m->high_fraction < 1) ||
         !(m->high_mean_s > 0) || !isfinite(m->high_mean_s)))
        return bad(err, "MMPP wants a rate ratio >= 1, a burst fraction "
                        "in (0, 1) and a burst mean > 0");
    /* Each state must last long enough for the clock to move: states of
     * 1e-300 s would switch forever between two arrivals. */
    if (s->arrivals == TRACE_GEN_MMPP &&
        (m->high_mean_s < TRACE_GEN_MIN_STATE_S ||
         m->high_mean_s * (1 - m->high_fraction) / m->high_fraction <
             TRACE_GEN_MIN_STATE_S ||
         m->high_mean_s > TRACE_GEN_MAX_S))
        return bad(err, "MMPP states must last 0.001 to 1e15 s on average "
                        "(burst mean %g s, burst fraction %g)",
                   m->high_mean_s, m->high_fraction);
    if (s->gpus.n < 1 || s->gpus.n > TRACE_GEN_MAX_GPU_BINS)
        return bad(err, "no GPU counts to draw from");
    for (size_t i = 0; i < s->gpus.n; i++)
        if (s->gpus.count[i] < 1 || !(s->gpus.prob[i] > 0))
            return bad(err, "GPU counts must be >= 1 with chance > 0");
    if (s->matrix && (!s->worker || !*s->worker))
        return bad(err, "job types need a worker type");
    return check_durations(&s->durations, err);
}

double trace_gen_mean_duration(const struct trace_gen_durations *d)
{
    switch (d->kind) {
    case TRACE_GEN_EXP: return d->a;
    case TRACE_GEN_LOGNORMAL: return exp(d->a + d->b * d->b / 2);
    case TRACE_GEN_PARETO:
        return d->a > 1 ? d->a * d->b / (d->a - 1) : INFINITY;
    case TRACE_GEN_RESAMPLE: {
        double sum = 0;
        for (size_t i = 0; i < d->nsamples; i++)
            sum += d->samples[i];
        return d->nsamples ? sum / (double)d->nsamples : NAN;
    }
    }
    return NAN;
}

double trace_gen_mean_gpus(const struct trace_gen_gpus *g)
{
    double sum = 0;
    for (size_t i = 0; i < g->n; i++)
        sum += g->prob[i] * g->count[i];
    return sum;
}

double trace_gen_rate_for_load(const struct trace_gen_spec *s, double load,
                               double capacity)
{
    double work =
        trace_gen_mean_gpus(&s->gpus) * trace_gen_mean_duration(&s->durations);
    if (!isfinite(work) || !(work > 0))
        return 0;
    return load * capacity / work;
}

void trace_gen_mmpp_states(const struct trace_gen_mmpp *m, double rate,
                           double rate_of[2], double mean_sojourn_s[2])
{
    double f = m->high_fraction;
    rate_of[0] = rate / (1 - f + f * m->rate_ratio);
    rate_of[1] = m->rate_ratio * rate_of[0];
    mean_sojourn_s[1] = m->high_mean_s;
    mean_sojourn_s[0] = m->high_mean_s * (1 - f) / f;
}

/* ---- drawing ----------------------------------------------------------- */

/* The arrival process between jobs. */
struct arrivals {
    double now;
    int state;   /* MMPP: 0 low, 1 high */
    double left; /* MMPP: time until the state changes */
    double rate_of[2], sojourn[2];
};

static double next_arrival(const struct trace_gen_spec *s, gsl_rng *r,
                           struct arrivals *a)
{
    if (s->arrivals == TRACE_GEN_POISSON) {
        a->now += gsl_ran_exponential(r, 1 / s->rate);
        return a->now;
    }
    for (long tries = 0; tries < TRACE_GEN_MAX_TRIES; tries++) {
        double gap = gsl_ran_exponential(r, 1 / a->rate_of[a->state]);
        if (gap < a->left) {
            a->now += gap;
            a->left -= gap;
            return a->now;
        }
        a->now += a->left;
        a->state ^= 1;
        a->left = gsl_ran_exponential(r, a->sojourn[a->state]);
    }
    return NAN;
}

/* One duration, finite and > 0 (a draw of exactly 0, or a Pareto tail
 * beyond DBL_MAX, is drawn again). */
static double draw_duration(const struct trace_gen_durations *d, gsl_rng *r)
{
    for (long tries = 0; tries < TRACE_GEN_MAX_TRIES; tries++) {
        double x = 0;
        switch (d->kind) {
        case TRACE_GEN_EXP: x = gsl_ran_exponential(r, d->a); break;
        case TRACE_GEN_LOGNORMAL: x = gsl_ran_lognormal(r, d->a, d->b); break;
        case TRACE_GEN_PARETO: x = gsl_ran_pareto(r, d->a, d->b); break;
        case TRACE_GEN_RESAMPLE:
            x = d->samples[gsl_rng_uniform_int(r, d->nsamples)];
            break;
        }
        if (x > 0 && x <= TRACE_GEN_MAX_S)
            return x;
    }
    return NAN; /* the checks above make this all but impossible */
}

/* Job types of the matrix that can run at each GPU count of the spec:
 * bin b holds n[b] entries from type[b * ntypes] and thr[b * ntypes]. */
struct job_types {
    size_t ntypes;
    size_t n[TRACE_GEN_MAX_GPU_BINS];
    const char **type; /* (nbins * ntypes) */
    double *thr;       /* (nbins * ntypes) steps/s on the worker */
};

static int job_types_init(struct job_types *jt, const struct trace_gen_spec *s,
                          struct trace_error *err)
{
    const struct trace_throughputs *m = s->matrix;
    size_t nt = m->types.n, cells = s->gpus.n * (nt ? nt : 1);
    jt->ntypes = nt;
    jt->type = malloc(cells * sizeof *jt->type);
    jt->thr = malloc(cells * sizeof *jt->thr);
    if (!jt->type || !jt->thr) {
        trace_error_set(err, "", 0, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    for (size_t b = 0; b < s->gpus.n; b++) {
        jt->n[b] = 0;
        for (size_t i = 0; i < nt; i++) {
            const char *name = trace_strpool_get(m->pool, m->types.str[i]);
            double thr;
            if (trace_throughput(m, s->worker, name, s->gpus.count[b], 0,
                                 &thr) != 0 ||
                !(thr > 0))
                continue;
            jt->type[b * nt + jt->n[b]] = name;
            jt->thr[b * nt + jt->n[b]++] = thr;
        }
        if (jt->n[b] == 0) {
            trace_error_set(err, "", 0, 0,
                            "no job type has a measured "
                            "throughput on %s at %d GPUs",
                            s->worker, (int)s->gpus.count[b]);
            return TRACE_EPARSE;
        }
    }
    return 0;
}

/* Draws job I (0-based) into *JOB, its strings into T's pool. */
static int draw_job(const struct trace_gen_spec *s, gsl_rng *r,
                    gsl_ran_discrete_t *bins, struct arrivals *a,
                    const struct job_types *jt, struct trace *t, size_t i,
                    struct trace_job *job)
{
    *job = trace_job_defaults;
    job->submit_time = next_arrival(s, r, a);
    size_t b = gsl_ran_discrete(r, bins);
    job->num_gpus = s->gpus.count[b];
    job->duration = draw_duration(&s->durations, r);
    job->line = i + 2 > UINT32_MAX ? UINT32_MAX : (uint32_t)(i + 2);
    if (!(job->submit_time <= TRACE_GEN_MAX_S) || isnan(job->duration))
        return TRACE_EPARSE; /* a draw that never came (bounded above) */
    if (s->matrix) {
        size_t k = b * jt->ntypes + gsl_rng_uniform_int(r, jt->n[b]);
        double steps = nearbyint(job->duration * jt->thr[k]);
        job->iterations = steps >= 1 ? (int64_t)fmin(steps, 9e18) : 1;
        if (trace_strpool_intern(t->pool, jt->type[k], strlen(jt->type[k]),
                                 &job->job_type))
            return TRACE_ENOMEM;
    }
    char id[32];
    int n = snprintf(id, sizeof id, "job-%zu", i + 1);
    return trace_strpool_append(t->pool, id, (size_t)n, &job->id);
}

static int generate(const struct trace_gen_spec *s, gsl_rng *r,
                    gsl_ran_discrete_t *bins, const struct job_types *jt,
                    struct trace *t)
{
    struct arrivals a = {0};
    if (s->arrivals == TRACE_GEN_MMPP) {
        trace_gen_mmpp_states(&s->mmpp, s->rate, a.rate_of, a.sojourn);
        a.state = gsl_rng_uniform(r) < s->mmpp.high_fraction;
        a.left = gsl_ran_exponential(r, a.sojourn[a.state]);
    }
    size_t cap = 0;
    for (size_t i = 0; i < s->njobs; i++) {
        struct trace_job job;
        int rc = draw_job(s, r, bins, &a, jt, t, i, &job);
        if (rc == TRACE_EPARSE)
            return rc;
        if (rc || trace_push_job(t, &cap, &job))
            return TRACE_ENOMEM;
    }
    return 0;
}

int trace_generate(const struct trace_gen_spec *s, struct trace **out,
                   struct trace_error *err)
{
    struct trace_error none;
    if (!err)
        err = &none;
    *out = NULL;
    int rc = trace_gen_check(s, err);
    if (rc)
        return rc;
    struct job_types jt = {0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_ran_discrete_t *bins =
        gsl_ran_discrete_preproc(s->gpus.n, s->gpus.prob);
    struct trace *t = trace_create();
    if (!r || !bins || !t) {
        rc = TRACE_ENOMEM;
        goto done;
    }
    gsl_rng_set(r, (unsigned long)(s->seed & 0xffffffffu));
    t->format = TRACE_FMT_NATIVE;
    if (s->matrix && (rc = job_types_init(&jt, s, err)) != 0)
        goto done;
    rc = generate(s, r, bins, &jt, t);
    if (rc == TRACE_EPARSE)
        trace_error_set(err, "", 0, 0,
                        "no usable draw in %ld tries (arrival times or "
                        "durations beyond 1e15 s)",
                        (long)TRACE_GEN_MAX_TRIES);
done:
    if (rc == TRACE_ENOMEM)
        trace_error_set(err, "", 0, 0, "out of memory");
    if (rc) {
        trace_destroy(t);
    } else {
        trace_finish(t);
        *out = t;
    }
    free(jt.type);
    free(jt.thr);
    if (bins)
        gsl_ran_discrete_free(bins);
    if (r)
        gsl_rng_free(r);
    return rc;
}
