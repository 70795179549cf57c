/* plan.c -- from an experiment's configuration to its workloads and runs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "experiment_internal.h"

static void set_list(const char **dst, size_t *n, const char *const *src,
                     size_t k)
{
    if (*n)
        return;
    for (size_t i = 0; i < k; i++)
        dst[i] = src[i];
    *n = k;
}

static void set_xs(struct exp_config *c, const double *xs, size_t k)
{
    if (c->nxs)
        return;
    memcpy(c->xs, xs, k * sizeof *xs);
    c->nxs = k;
}

static void set_seeds(struct exp_config *c, const uint64_t *s, size_t k)
{
    if (c->nseeds)
        return;
    memcpy(c->seeds, s, k * sizeof *s);
    c->nseeds = k;
}

static void continuous_defaults(struct exp_config *c)
{
    static const char *const pol[] = {"gavel:fifo", "gavel:fifo_perf",
                                      "gavel:max_min_fairness",
                                      "gavel:max_min_fairness_perf"};
    static const double full[] = {0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8};
    static const double quick[] = {0.4, 2.8};
    static const uint64_t seeds[] = {0, 1, 2};
    set_list(c->policies, &c->npolicies, pol, 4);
    if (c->quick || c->fixture)
        set_xs(c, quick, 2);
    else
        set_xs(c, full, 7);
    set_seeds(c, seeds, c->quick || c->fixture ? 1 : 3);
    if (!c->njobs)
        c->njobs = EXP_GAVEL_TRACE_JOBS;
}

static void makespan_defaults(struct exp_config *c)
{
    static const char *const pol[] = {"gavel:fifo_perf",
                                      "gavel:max_min_fairness_perf",
                                      "gavel:min_total_duration_perf"};
    static const double full[] = {50, 100, 200, 400};
    static const double quick[] = {50, 100};
    static const uint64_t seeds[] = {0, 1, 2};
    set_list(c->policies, &c->npolicies, pol, 3);
    if (c->quick)
        set_xs(c, quick, 2);
    else
        set_xs(c, full, 4);
    set_seeds(c, seeds, c->quick ? 1 : 3);
}

static void fgd_defaults(struct exp_config *c)
{
    static const char *const pol[] = {"fgd", "best-fit", "dot-product",
                                      "first-fit", "random"};
    static const double xs[] = {0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
    static const uint64_t seeds[] = {1};
    set_list(c->policies, &c->npolicies, pol, 5);
    set_xs(c, xs, 8);
    set_seeds(c, seeds, 1);
}

void exp_config_defaults(struct exp_config *cfg)
{
    switch (exp_kind(cfg->info)) {
    case EXP_CONTINUOUS: continuous_defaults(cfg); break;
    case EXP_MAKESPAN: makespan_defaults(cfg); break;
    case EXP_FGD: fgd_defaults(cfg); break;
    }
}

static int add_arg(struct exp_cell *c, size_t *k, const char *text)
{
    if (*k + 1 >= EXP_MAX_ARGS)
        return -1;
    c->argv[*k] = strdup(text);
    if (!c->argv[*k])
        return -1;
    c->argv[++*k] = NULL;
    return 0;
}

/* The folder name of a policy: its characters that are safe in a path. */
static void safe_name(char *dst, size_t cap, const char *policy)
{
    size_t i = 0;
    for (; policy[i] && i + 1 < cap; i++) {
        char ch = policy[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        dst[i] = ok ? ch : '_';
    }
    dst[i] = '\0';
}

static int cell_args(const struct exp_config *cfg, struct exp_cell *c,
                     const char *trace)
{
    const char *pol = cfg->policies[c->policy];
    char seed[32];
    snprintf(seed, sizeof seed, "%llu",
             (unsigned long long)cfg->seeds[c->seed]);
    size_t k = 0;
    int rc = add_arg(c, &k, "hetsim");
    if (exp_kind(cfg->info) == EXP_FGD) {
        char cluster[4200];
        snprintf(cluster, sizeof cluster, "alibaba2023:%s", cfg->nodes);
        const char *a[] = {"pack", "-t",   trace, "-c", cluster,      "-P", pol,
                           "-o",   c->out, "-s",  seed, "--no-plots", "-q"};
        for (size_t i = 0; !rc && i < sizeof a / sizeof *a; i++)
            rc = add_arg(c, &k, a[i]);
        return rc;
    }
    const char *a[] = {"run",       "-t",    trace,
                       "-f",        "gavel", "-c",
                       "gavel-108", "-T",    cfg->throughputs,
                       "-p",        pol,     "-o",
                       c->out,      "-s",    seed,
                       "-q"};
    for (size_t i = 0; !rc && i < sizeof a / sizeof *a; i++)
        rc = add_arg(c, &k, a[i]);
    /* hetsim's own makespan LP needs to know each job's remaining work. */
    if (!rc && strcmp(pol, "gavel-makespan") == 0)
        rc = add_arg(c, &k, "--estimates") || add_arg(c, &k, "oracle");
    return rc;
}

static int mkdir_p(const char *dir)
{
    return mkdir(dir, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* The trace of (x, seed): a fixture, a generated file, or the pods. */
static int workload(const struct exp_config *cfg,
                    const struct trace_throughputs *m, size_t x, size_t s,
                    char *path, size_t cap, char *err, size_t errlen)
{
    enum exp_kind kind = exp_kind(cfg->info);
    if (kind == EXP_FGD) {
        snprintf(path, cap, "%s", cfg->trace);
        return 0;
    }
    unsigned long long seed = (unsigned long long)cfg->seeds[s];
    if (kind == EXP_CONTINUOUS && cfg->fixture) {
        snprintf(path, cap, "%s/continuous_r%g_s%llu.trace", cfg->fixture,
                 cfg->xs[x], seed);
        if (access(path, R_OK) != 0) {
            snprintf(err, errlen,
                     "%s: no fixture trace for rate %g, seed %llu (the "
                     "fixtures are seed 0 at 0.4 and 2.8 jobs/h)",
                     path, cfg->xs[x], seed);
            return -1;
        }
        return 0;
    }
    struct exp_gavel_gen g = {.seed = cfg->seeds[s]};
    if (kind == EXP_CONTINUOUS) {
        g.rate_per_h = cfg->xs[x];
        g.njobs = cfg->njobs;
        snprintf(path, cap, "%s/traces/gavel_r%g_s%llu.trace", cfg->work,
                 cfg->xs[x], seed);
    } else {
        g.njobs = (size_t)cfg->xs[x];
        g.multi_gpu = 1;
        snprintf(path, cap, "%s/traces/static_n%zu_s%llu.trace", cfg->work,
                 g.njobs, seed);
    }
    return exp_write_gavel_trace(path, m, &g, err, errlen);
}

static int plan_cells(struct exp_plan *p, const struct trace_throughputs *m,
                      char *err, size_t errlen)
{
    const struct exp_config *cfg = &p->cfg;
    char runs[3800], trace[4200];
    snprintf(runs, sizeof runs, "%s/runs", cfg->work);
    snprintf(trace, sizeof trace, "%s/traces", cfg->work);
    if (mkdir_p(runs) || mkdir_p(trace)) {
        snprintf(err, errlen, "%s: %s", runs, strerror(errno));
        return -1;
    }
    for (size_t x = 0; x < cfg->nxs; x++)
        for (size_t s = 0; s < cfg->nseeds; s++) {
            if (workload(cfg, m, x, s, trace, sizeof trace, err, errlen))
                return -1;
            /* fgd reads all its x values from one run per placement */
            int fgd = exp_kind(cfg->info) == EXP_FGD;
            for (size_t k = 0; k < cfg->npolicies; k++) {
                struct exp_cell *c = &p->cells[p->ncells++];
                char name[128];
                safe_name(name, sizeof name, cfg->policies[k]);
                c->policy = k;
                c->x = x;
                c->seed = s;
                c->value = NAN;
                c->skip_run = fgd && x > 0;
                if (fgd)
                    snprintf(c->out, sizeof c->out, "%s/%s_s%llu", runs, name,
                             (unsigned long long)cfg->seeds[s]);
                else
                    snprintf(c->out, sizeof c->out, "%s/%s_x%g_s%llu", runs,
                             name, cfg->xs[x],
                             (unsigned long long)cfg->seeds[s]);
                if (cell_args(cfg, c, trace)) {
                    snprintf(err, errlen, "out of memory");
                    return -1;
                }
            }
        }
    return 0;
}

int exp_plan_create(const struct exp_config *cfg, struct exp_plan **out,
                    char *err, size_t errlen)
{
    *out = NULL;
    struct exp_plan *p = calloc(1, sizeof *p);
    size_t n = cfg->npolicies * cfg->nxs * cfg->nseeds;
    if (!p || !(p->cells = calloc(n ? n : 1, sizeof *p->cells))) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->cfg = *cfg;
    struct trace_throughputs *m = NULL;
    struct trace_error terr = {0};
    if (exp_kind(cfg->info) != EXP_FGD &&
        trace_throughputs_load(cfg->throughputs, &m, &terr) != 0) {
        snprintf(err, errlen, "%s: %s", cfg->throughputs, terr.text);
        exp_plan_destroy(p);
        return -1;
    }
    int rc = plan_cells(p, m, err, errlen);
    trace_throughputs_destroy(m);
    if (rc) {
        exp_plan_destroy(p);
        return -1;
    }
    *out = p;
    return 0;
}

void exp_plan_destroy(struct exp_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ncells; i++)
        for (size_t k = 0; p->cells[i].argv[k]; k++)
            free(p->cells[i].argv[k]);
    free(p->cells);
    free(p);
}
