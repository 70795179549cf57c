/* estimators.c -- the `history` estimator and the cache of predictions.
 *
 * history: a job's run time is estimated as the mean run time of the jobs
 * of the same user (or virtual cluster) that have finished so far, the
 * estimator family of the Alibaba PAI-2020 (Weng et al., NSDI'22) and
 * Helios (Hu et al., SC'21) studies. A group with no finished job yet
 * falls back to the mean of every finished job, and before any job has
 * finished to a fixed prior. Like those homogeneous-cluster studies it
 * knows nothing of GPU types: it gives the same time on every type. A
 * finished job's run time is its work at the speed where it finished,
 * without restart overheads. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "estimators.h"

#define NO_GROUP UINT32_MAX

static size_t key_hash(const struct est_key *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return (size_t)h;
}

static int memo_grow(struct est_memo *m)
{
    size_t cap = m->cap ? 2 * m->cap : 64;
    struct est_memo n = {calloc(cap, sizeof *n.keys),
                         malloc(cap * sizeof *n.vals),
                         calloc(cap, 1), cap, m->len};
    if (!n.keys || !n.vals || !n.used) {
        est_memo_free(&n);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        size_t h = key_hash(&m->keys[i]) & (cap - 1);
        while (n.used[h])
            h = (h + 1) & (cap - 1);
        n.used[h] = 1;
        n.keys[h] = m->keys[i];
        n.vals[h] = m->vals[i];
    }
    est_memo_free(m);
    *m = n;
    return 0;
}

struct sim_estimate *est_memo_slot(struct est_memo *m,
                                   const struct est_key *key, int *found)
{
    if (2 * (m->len + 1) > m->cap && memo_grow(m) != 0)
        return NULL;
    size_t h = key_hash(key) & (m->cap - 1);
    while (m->used[h] && memcmp(&m->keys[h], key, sizeof *key) != 0)
        h = (h + 1) & (m->cap - 1);
    *found = m->used[h];
    if (!m->used[h]) {
        m->used[h] = 1;
        m->keys[h] = *key;
        m->len++;
    }
    return &m->vals[h];
}

void est_memo_free(struct est_memo *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static int history_estimate(void *ctx, const struct sim *s, uint32_t job,
                            struct sim_estimate *out)
{
    struct cli_estimator *e = ctx;
    double t0 = cli_clock();
    const struct sim_job *j = sim_job(s, job);
    uint32_t g = e->group_of[j->trace_index];
    double mean = e->prior_s;
    if (g != NO_GROUP && e->count[g] > 0)
        mean = e->sum_s[g] / (double)e->count[g];
    else if (e->all_count > 0)
        mean = e->all_sum_s / (double)e->all_count;
    for (int32_t t = 0; t < e->cluster->ntypes; t++)
        if (j->allowed & (1u << t))
            out->runtime_s[t] = mean;
    e->calls++;
    e->wall_s += cli_clock() - t0;
    return 0;
}

static void history_finish(void *ctx, const struct sim *s, uint32_t job)
{
    struct cli_estimator *e = ctx;
    const struct sim_job *j = sim_job(s, job);
    double run = j->work * j->unit_s;
    uint32_t g = e->group_of[j->trace_index];
    if (g != NO_GROUP) {
        e->sum_s[g] += run;
        e->count[g]++;
    }
    e->all_sum_s += run;
    e->all_count++;
}

/* Each job's user (or vc) group into e->group_of; 0, or -1 out of
 * memory. */
static int number_groups(struct cli_estimator *e, const struct trace *t)
{
    e->group_of = malloc((t->njobs ? t->njobs : 1) * sizeof *e->group_of);
    long n = e->group_of ? cli_number_groups(t, e->by == EST_BY_USER,
                                             e->group_of)
                         : -1;
    if (n < 0)
        return -1;
    e->ngroups = (size_t)n;
    return 0;
}

int est_history_init(struct cli_estimator *e, const struct trace *t,
                     const struct cluster *c, enum est_history_by by,
                     double prior_s)
{
    memset(e, 0, sizeof *e);
    e->trace = t;
    e->cluster = c;
    e->by = by;
    e->prior_s = prior_s;
    e->hooks = (struct sim_estimator){by == EST_BY_USER ? "history:user"
                                                        : "history:vc",
                                      e, history_estimate, history_finish};
    if (number_groups(e, t) != 0)
        return -1;
    size_t n = e->ngroups ? e->ngroups : 1;
    e->sum_s = calloc(n, sizeof *e->sum_s);
    e->count = calloc(n, sizeof *e->count);
    return e->sum_s && e->count ? 0 : -1;
}

void est_free(struct cli_estimator *e)
{
    if (!e)
        return;
    free(e->sum_s);
    free(e->count);
    free(e->group_of);
    est_model_destroy(e->runtime);
    est_model_destroy(e->memory);
    est_model_destroy(e->util);
    est_memo_free(&e->memo);
    memset(e, 0, sizeof *e);
}
