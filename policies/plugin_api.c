/* plugin_api.c -- the functions a policy plugin reads the engine and
 * decides through (struct hetsim_policy_api of hetsim/policy_abi.h), each a
 * thin wrapper over the view and decisions of sim.h and the placer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugin_internal.h"

/* The ABI repeats hetsim's codes and layouts so that it can stand alone. */
_Static_assert(HETSIM_ENOMEM == SIM_ENOMEM && HETSIM_EINVAL == SIM_EINVAL &&
                   HETSIM_EDECISION == SIM_EDECISION,
               "return codes");
_Static_assert(HETSIM_JOB_SUBMITTED == JOB_SUBMITTED &&
                   HETSIM_JOB_QUEUED == JOB_QUEUED &&
                   HETSIM_JOB_RUNNING == JOB_RUNNING &&
                   HETSIM_JOB_PREEMPTED == JOB_PREEMPTED &&
                   HETSIM_JOB_COMPLETED == JOB_COMPLETED &&
                   HETSIM_JOB_FAILED == JOB_FAILED,
               "job states");

/* A plugin's out-of-range number is a bug in it: the function answers a
 * sentinel (policy_abi.h) and the run stops after the hook with this reason,
 * under the plugin's name, instead of crashing or aborting hetsim. */
static int misuse(const struct hetsim_sim *v, const char *fn, const char *what,
                  long long value, long long count)
{
    char why[160];
    snprintf(why, sizeof why,
             "plugin called %s with %s %lld, out of range (0 to %lld)", fn,
             what, value, count - 1);
    sim_fail(v->sim, why);
    return HETSIM_EINVAL;
}

/* Whether JOB is a job; else the misuse is recorded. */
static int job_ok(const struct hetsim_sim *v, uint32_t job, const char *fn)
{
    size_t n = sim_njobs(v->sim);
    if (job < n)
        return 1;
    misuse(v, fn, "job", (long long)job, (long long)n);
    return 0;
}

static int type_ok(const struct hetsim_sim *v, int32_t type, const char *fn)
{
    int32_t n = sim_cluster(v->sim)->ntypes;
    if (type >= 0 && type < n)
        return 1;
    misuse(v, fn, "GPU type", type, n);
    return 0;
}

static int node_ok(const struct hetsim_sim *v, int32_t node, const char *fn)
{
    int32_t n = sim_cluster(v->sim)->nnodes;
    if (node >= 0 && node < n)
        return 1;
    misuse(v, fn, "node", node, n);
    return 0;
}

/* ---- The api: reading ---------------------------------------------------- */

static const struct cluster *cl_of(const struct hetsim_sim *v)
{
    return sim_cluster(v->sim);
}

static double api_now(const struct hetsim_sim *v)
{
    return sim_now(v->sim);
}

static size_t api_num_jobs(const struct hetsim_sim *v)
{
    return sim_njobs(v->sim);
}

static int32_t api_queue_head(const struct hetsim_sim *v)
{
    return sim_queue_head(v->sim);
}

static int32_t api_queue_next(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "queue_next"))
        return -1;
    return sim_queue_next(v->sim, job);
}

static size_t api_queue_len(const struct hetsim_sim *v)
{
    return sim_queue_len(v->sim);
}

static double api_submit_time(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_submit_time"))
        return NAN;
    return sim_job(v->sim, job)->submit_time;
}

static int32_t api_num_gpus(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_num_gpus"))
        return -1;
    return sim_job(v->sim, job)->num_gpus;
}

static int api_state(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_state"))
        return -1;
    return sim_job(v->sim, job)->state;
}

static double api_est_remaining_s(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_est_remaining_s"))
        return NAN;
    if (!(sim_job(v->sim, job)->est_work > 0))
        return -1;
    return pol_est_remaining_s(v->sim, job);
}

static int32_t api_gpu_milli(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_gpu_milli"))
        return -1;
    return sim_job_gpu_milli(v->sim, job);
}

static double api_est_gpu_util(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_est_gpu_util"))
        return NAN;
    return sim_est_gpu_util(v->sim, job);
}

static double api_attained_s(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_attained_s"))
        return NAN;
    return sim_attained_s(v->sim, job);
}

static uint32_t api_allowed_types(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_allowed_types"))
        return 0;
    return sim_job(v->sim, job)->allowed;
}

static int32_t api_job_gpu_type(const struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "job_gpu_type"))
        return -1;
    return sim_job(v->sim, job)->gpu_type;
}

static double api_runtime_on(const struct hetsim_sim *v, uint32_t job,
                             int32_t type, int spread)
{
    if (!job_ok(v, job, "job_runtime_on") ||
        !type_ok(v, type, "job_runtime_on"))
        return NAN;
    return sim_runtime_on(v->sim, job, type, spread);
}

static int32_t api_num_gpu_types(const struct hetsim_sim *v)
{
    return cl_of(v)->ntypes;
}

static const struct gpu_type *type_of(const struct hetsim_sim *v, int32_t type)
{
    return &cl_of(v)->types[type];
}

static const char *api_type_name(const struct hetsim_sim *v, int32_t type)
{
    return type_ok(v, type, "gpu_type_name") ? type_of(v, type)->name : NULL;
}

static double api_type_speed(const struct hetsim_sim *v, int32_t type)
{
    return type_ok(v, type, "gpu_type_speed") ? type_of(v, type)->speed : NAN;
}

static int32_t api_type_gpus(const struct hetsim_sim *v, int32_t type)
{
    return type_ok(v, type, "gpu_type_gpus") ? type_of(v, type)->gpus : -1;
}

static int32_t api_free_gpus(const struct hetsim_sim *v, int32_t type)
{
    if (!type_ok(v, type, "free_gpus"))
        return -1;
    return sim_free_gpus(v->sim, type);
}

static int32_t api_num_nodes(const struct hetsim_sim *v)
{
    return cl_of(v)->nnodes;
}

static const struct node *node_of(const struct hetsim_sim *v, int32_t node)
{
    return &cl_of(v)->nodes[node];
}

static int32_t api_node_type(const struct hetsim_sim *v, int32_t node)
{
    return node_ok(v, node, "node_gpu_type") ? node_of(v, node)->gpu_type : -1;
}

static int32_t api_node_gpus(const struct hetsim_sim *v, int32_t node)
{
    return node_ok(v, node, "node_gpus") ? node_of(v, node)->gpus : -1;
}

static int32_t api_node_free(const struct hetsim_sim *v, int32_t node)
{
    if (!node_ok(v, node, "node_free"))
        return -1;
    return sim_node_free(v->sim, node);
}

/* ---- The api: deciding --------------------------------------------------- */

/* Grows *BUF of *CAP elements of SIZE bytes to hold N. 0 or SIM_ENOMEM. */
static int grow(void **buf, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    void *p = realloc(*buf, c * size);
    if (!p)
        return SIM_ENOMEM;
    *buf = p;
    *cap = c;
    return 0;
}

static int api_place(struct hetsim_sim *v, uint32_t job,
                     struct hetsim_placement *out)
{
    struct adapter *a = (struct adapter *)v; /* view is its first member */
    if (!out) {
        sim_fail(v->sim, "plugin called place with a NULL placement");
        return HETSIM_EINVAL;
    }
    if (!job_ok(v, job, "place"))
        return HETSIM_EINVAL;
    struct sim_placement p;
    int rc = pol_place(v->placer, v->sim, job, &p);
    if (rc)
        return rc; /* HETSIM_NO_ROOM or HETSIM_ENOMEM */
    if (grow((void **)&a->out_segs, &a->out_cap, (size_t)p.nseg,
             sizeof *a->out_segs))
        return SIM_ENOMEM;
    for (int32_t i = 0; i < p.nseg; i++)
        a->out_segs[i] = (struct hetsim_seg){p.seg[i].node, p.seg[i].gpus};
    *out = (struct hetsim_placement){p.gpu_type, p.nseg, a->out_segs};
    a->placed_job = p.share ? (int64_t)job : -1;
    if (p.share)
        a->placed = *p.share;
    return 0;
}

static int api_start(struct hetsim_sim *v, uint32_t job,
                     const struct hetsim_placement *p)
{
    struct adapter *a = (struct adapter *)v;
    if (!job_ok(v, job, "start"))
        return HETSIM_EINVAL;
    if (!p || (p->nseg > 0 && !p->seg)) {
        sim_fail(v->sim, p ? "plugin called start with nseg > 0 and seg NULL"
                           : "plugin called start with a NULL placement");
        return HETSIM_EINVAL;
    }
    if (!type_ok(v, p->gpu_type, "start"))
        return HETSIM_EINVAL;
    /* More segments than nodes names a node twice: sim_start says so from
     * the first nnodes + 1 of them. */
    int32_t nseg = p->nseg, most = cl_of(v)->nnodes + 1;
    if (nseg > most)
        nseg = most;
    if (nseg > 0 && grow((void **)&a->in_segs, &a->in_cap, (size_t)nseg,
                         sizeof *a->in_segs))
        return SIM_ENOMEM;
    for (int32_t i = 0; i < nseg; i++)
        a->in_segs[i] = (struct sim_seg){p->seg[i].node, p->seg[i].gpus};
    struct sim_placement sp = {p->gpu_type, nseg, a->in_segs, NULL};
    if (a->placed_job == (int64_t)job && nseg == 1 &&
        a->in_segs[0].node == a->placed.node)
        sp.share = &a->placed;
    a->placed_job = -1;
    return sim_start(v->sim, job, &sp);
}

static int api_preempt(struct hetsim_sim *v, uint32_t job)
{
    if (!job_ok(v, job, "preempt"))
        return HETSIM_EINVAL;
    return sim_preempt(v->sim, job);
}

static int api_wake_at(struct hetsim_sim *v, double time)
{
    return sim_wake_at(v->sim, time);
}

const struct hetsim_policy_api pol_plugin_api = {
    .abi_version = HETSIM_POLICY_ABI_VERSION,
    .now = api_now,
    .num_jobs = api_num_jobs,
    .queue_head = api_queue_head,
    .queue_next = api_queue_next,
    .queue_len = api_queue_len,
    .job_submit_time = api_submit_time,
    .job_num_gpus = api_num_gpus,
    .job_state = api_state,
    .job_est_remaining_s = api_est_remaining_s,
    .job_attained_s = api_attained_s,
    .job_allowed_types = api_allowed_types,
    .job_gpu_type = api_job_gpu_type,
    .job_runtime_on = api_runtime_on,
    .job_gpu_milli = api_gpu_milli,
    .job_est_gpu_util = api_est_gpu_util,
    .num_gpu_types = api_num_gpu_types,
    .gpu_type_name = api_type_name,
    .gpu_type_speed = api_type_speed,
    .gpu_type_gpus = api_type_gpus,
    .free_gpus = api_free_gpus,
    .num_nodes = api_num_nodes,
    .node_gpu_type = api_node_type,
    .node_gpus = api_node_gpus,
    .node_free = api_node_free,
    .place = api_place,
    .start = api_start,
    .preempt = api_preempt,
    .wake_at = api_wake_at,
};
