/* options.c -- binding a policy to an engine: its options, what it needs,
 * and the names of placements and backfill modes. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int pol_refuse(const struct pol_config *cfg, const char *fmt, ...)
{
    if (cfg->error && cfg->error_cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cfg->error, cfg->error_cap, fmt, ap);
        va_end(ap);
    }
    return SIM_EINVAL;
}

static const struct pol_param *find_param(const struct pol_param *params,
                                          const char *key)
{
    for (size_t i = 0; params && params[i].name; i++)
        if (strcmp(params[i].name, key) == 0)
            return &params[i];
    return NULL;
}

/* The valid keys of OPS, for messages. */
static void list_params(const struct pol_ops *ops, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t i = 0; ops->params && ops->params[i].name; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                 ops->params[i].name);
    }
    if (!buf[0])
        snprintf(buf, cap, "none");
}

int pol_bind(const struct pol_ops *ops, struct pol_config *cfg,
             struct sim_policy *out)
{
    *out = (struct sim_policy){.name = ops->name,
                               .on_arrival = ops->on_arrival,
                               .on_finish = ops->on_finish,
                               .schedule = ops->schedule};
    cfg->params = ops->params;
    for (size_t i = 0; i < cfg->nopts; i++) {
        if (!find_param(ops->params, cfg->keys[i])) {
            char valid[512];
            list_params(ops, valid, sizeof valid);
            return pol_refuse(cfg, "policy %s has no option '%s' (its "
                              "options: %s)", ops->name, cfg->keys[i], valid);
        }
    }
    if (ops->needs_estimates && !cfg->has_estimates)
        return pol_refuse(cfg, "policy %s needs run-time estimates: pass "
                          "--estimates oracle, trace, noisy:SIGMA, history or "
                          "predictor:MODEL.bin",
                          ops->name);
    if (ops->preemptive && cfg->backfill != POL_BACKFILL_NONE)
        return pol_refuse(cfg, "--backfill applies to non-preemptive "
                          "policies, and %s preempts", ops->name);
    if (cfg->backfill != POL_BACKFILL_NONE &&
        cfg->backfill != POL_BACKFILL_GREEDY && !cfg->has_estimates)
        return pol_refuse(cfg, "--backfill needs run-time estimates: pass "
                          "--estimates oracle, trace, noisy:SIGMA, history or "
                          "predictor:MODEL.bin");
    return ops->create ? ops->create(cfg, &out->state) : 0;
}

void pol_unbind(const struct pol_ops *ops, struct sim_policy *p)
{
    if (ops->destroy && p->state)
        ops->destroy(p->state);
    p->state = NULL;
}

int pol_opt_string(const struct pol_config *cfg, const char *key,
                   const char **out)
{
    for (size_t i = cfg->nopts; i-- > 0;) { /* the last one given wins */
        if (strcmp(cfg->keys[i], key) == 0) {
            *out = cfg->values[i];
            return 0;
        }
    }
    const struct pol_param *p = find_param(cfg->params, key);
    if (!p)
        return pol_refuse(cfg, "no option '%s'", key);
    *out = p->def;
    return 0;
}

int pol_opt_double(const struct pol_config *cfg, const char *key, double min,
                   double max, double *out)
{
    const char *text;
    int rc = pol_opt_string(cfg, key, &text);
    if (rc)
        return rc;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min && v <= max))
        return pol_refuse(cfg, "--policy-opt %s wants a number from %g to "
                          "%g, got '%s'", key, min, max, text);
    *out = v;
    return 0;
}

static const char *const placement_names[POL_PLACE_COUNT] = {
    "fastest", "consolidate", "first-fit", "best-fit", "random"};

const char *pol_placement_name(enum pol_placement p)
{
    return p < POL_PLACE_COUNT ? placement_names[p] : "unknown";
}

int pol_placement_parse(const char *name)
{
    for (int i = 0; i < POL_PLACE_COUNT; i++)
        if (strcmp(placement_names[i], name) == 0)
            return i;
    return -1;
}

int pol_backfill_parse(const char *name)
{
    static const char *const names[] = {"none", "easy", "conservative",
                                        "greedy"};
    for (int i = 0; i < 4; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

double pol_est_remaining_s(const struct sim *s, uint32_t job)
{
    const struct sim_job *j = sim_job(s, job);
    double done = j->work - sim_work_left(s, job);
    double left = j->est_work - done;
    if (left <= 0)
        return 0;
    if (j->state == JOB_RUNNING)
        return left * j->unit_s;
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    double best = INFINITY;
    for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++)
        if ((j->allowed & (1u << t)) && cl->unit_s[t] > 0 &&
            cl->unit_s[t] < best)
            best = cl->unit_s[t];
    if (best == INFINITY) /* a class that only runs spread */
        for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++)
            if ((j->allowed & (1u << t)) && cl->spread_unit_s[t] > 0 &&
                cl->spread_unit_s[t] < best)
                best = cl->spread_unit_s[t];
    return best == INFINITY ? 0 : left * best;
}
