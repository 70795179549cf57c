/* helpers.c -- see helpers.h. */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

struct cluster *th_cluster(const char *json)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(json, "test", &c, &err), 0, "%s", err.text);
    return c;
}

void th_add(struct sim *s, double submit, double work, double est, int gpus,
            uint32_t allowed)
{
    struct sim_job_spec spec = {submit, work, gpus, allowed,
                                (uint32_t)sim_njobs(s), 0, est, 0, 0};
    cr_assert_eq(sim_add_job(s, &spec), 0);
}

const struct pol_ops *th_find(const char *name)
{
    const struct pol_ops *ops = pol_find(name);
    cr_assert_not_null(ops, "no policy %s", name);
    return ops;
}

void th_split_opt(const char *opt, char *key, size_t kcap, char *value,
                  size_t vcap)
{
    const char *eq = strchr(opt, '=');
    snprintf(key, kcap, "%.*s", (int)(eq - opt), opt);
    snprintf(value, vcap, "%s", eq + 1);
}

int th_bind_run(struct sim *s, const struct pol_ops *ops,
                struct pol_config *cfg, const struct sim_observer *obs)
{
    struct sim_policy hooks;
    int rc = pol_bind(ops, cfg, &hooks);
    if (rc == 0) {
        struct sim_error err = {0};
        cr_assert_eq(sim_run(s, &hooks, obs, &err), 0, "%s", err.text);
    }
    pol_unbind(ops, &hooks);
    return rc;
}

void th_expect_finish(const struct sim *s, const double *finish,
                      const int *preemptions)
{
    for (uint32_t j = 0; j < sim_njobs(s); j++) {
        const struct sim_job *x = sim_job(s, j);
        cr_expect_float_eq(x->finish_time, finish[j], 1e-9,
                           "job %u ends at %.17g, not %g", j, x->finish_time,
                           finish[j]);
        cr_expect_eq(x->preemptions, preemptions[j],
                     "job %u preempted %d times, not %d", j, x->preemptions,
                     preemptions[j]);
    }
}
