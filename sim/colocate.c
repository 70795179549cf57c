/* colocate.c -- GPU sharing in the engine (contract in sim.h,
 * sim_enable_sharing): the milli-GPU cluster (share.c) kept beside the
 * engine's whole-GPU counts, jobs co-located on one GPU and their speeds,
 * and the figures of a sharing run.
 *
 * The engine's node_free (and so its free maps, sim_find_node and the
 * whole-GPU placements) counts a node's fully free GPUs: a GPU leaves it
 * when its first job comes and returns when its last goes. busy counts
 * the GPUs that hold any job.
 *
 * Speed. A job alone on its GPU (or on whole GPUs) runs at speed 1: its
 * work left falls by one unit per unit_s seconds. With company, its speed
 * is the product of pair_speed over the others on that GPU. Whenever a GPU
 * gains or loses a job, every job left on it has its progress brought up
 * to date at the old speed, gets the new speed and a new finish event (the
 * old one goes stale through the job's epoch). A doomed run (memory.c)
 * makes no progress and keeps its out-of-memory event.
 *
 * Figures. Allocated milli-GPU and fragmentation are step functions of
 * time, integrated from the first submit to the last finish, at the end of
 * every instant that changed anything; effective_utilization counts, per
 * completed job, its milli-GPU times the time it would have run alone. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

/* The slowest a job runs, however many share its GPU. */
#define SHARE_MIN_SPEED 1e-6

void sim_share_free(struct sim *s)
{
    struct sim_share *x = s->share;
    if (!x)
        return;
    share_cluster_destroy(x->sc);
    free(x->demand);
    free(x->alloc);
    free(x->speed);
    free(x->last);
    free(x->next_on_gpu);
    free(x->shared);
    free(x->gpu_base);
    free(x->gpu_head);
    free(x->node_frag);
    free(x->dirty);
    free(x);
    s->share = NULL;
}

static int alloc_arrays(struct sim_share *x, size_t n, size_t nn, size_t gpus)
{
    n = n ? n : 1;
    nn = nn ? nn : 1;
    gpus = gpus ? gpus : 1;
    x->demand = malloc(n * sizeof *x->demand);
    x->alloc = malloc(n * sizeof *x->alloc);
    x->speed = malloc(n * sizeof *x->speed);
    x->last = calloc(n, sizeof *x->last);
    x->next_on_gpu = malloc(n * sizeof *x->next_on_gpu);
    x->shared = calloc(n, 1);
    x->gpu_base = malloc(nn * sizeof *x->gpu_base);
    x->gpu_head = malloc(gpus * sizeof *x->gpu_head);
    x->node_frag = calloc(nn, sizeof *x->node_frag);
    x->dirty = calloc(nn, 1);
    return x->demand && x->alloc && x->speed && x->last && x->next_on_gpu &&
                   x->shared && x->gpu_base && x->gpu_head && x->node_frag &&
                   x->dirty
               ? 0
               : SIM_ENOMEM;
}

int sim_enable_sharing(struct sim *s, const struct sim_sharing *cfg)
{
    SIM_ASSERT(!s->ran && !s->share && cfg->pair_speed && cfg->w);
    for (size_t j = 0; j < s->njobs; j++)
        if (!share_demand_valid(&cfg->demands[j]))
            return SIM_EINVAL;
    struct sim_share *x = calloc(1, sizeof *x);
    if (!x)
        return SIM_ENOMEM;
    s->share = x;
    int rc = share_cluster_create(s->cluster, &x->sc);
    if (rc) {
        sim_share_free(s);
        return rc;
    }
    size_t nn = (size_t)x->sc->nnodes,
           gpus = (size_t)(x->sc->total_milli / SHARE_MILLI);
    if (alloc_arrays(x, s->njobs, nn, gpus)) {
        sim_share_free(s);
        return SIM_ENOMEM;
    }
    x->w = cfg->w;
    x->pair_speed = cfg->pair_speed;
    x->ctx = cfg->ctx;
    x->util_bound = cfg->util_bound;
    memcpy(x->demand, cfg->demands, s->njobs * sizeof *x->demand);
    for (size_t j = 0; j < s->njobs; j++) {
        x->alloc[j] = (struct share_alloc){-1, -1, 0};
        x->speed[j] = 1;
        x->next_on_gpu[j] = -1;
    }
    for (size_t i = 0, g = 0; i < nn; g += (size_t)x->sc->nodes[i++].gpus) {
        x->gpu_base[i] = (int32_t)g;
        if (cfg->host_cpu)
            share_node_set_host(&x->sc->nodes[i], cfg->host_cpu[i],
                                cfg->host_mem[i]);
    }
    for (size_t g = 0; g < gpus; g++)
        x->gpu_head[g] = -1;
    return 0;
}

const struct share_cluster *sim_share_cluster(const struct sim *s)
{
    return s->share ? s->share->sc : NULL;
}

const struct share_demand *sim_job_demand(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    return s->share ? &s->share->demand[job] : NULL;
}

const struct share_alloc *sim_job_alloc(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    if (!s->share || sim_job_at(s, job)->state != JOB_RUNNING)
        return NULL;
    return &s->share->alloc[job];
}

int sim_job_was_shared(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    return s->share ? s->share->shared[job] : 0;
}

void sim_share_begin(struct sim *s)
{
    struct sim_share *x = s->share;
    x->last_frag = 0;
    for (int32_t i = 0; i < x->sc->nnodes; i++) {
        x->node_frag[i] = share_node_frag(&x->sc->nodes[i], x->w);
        x->last_frag += x->node_frag[i];
    }
    x->last_t = s->njobs ? sim_job_at(s, s->order[0])->submit_time : 0;
}

/* Whether D fits node N when N is empty. */
static int fits_empty(const struct share_node *n, const struct share_demand *d)
{
    int32_t full[SHARE_MAX_NODE_GPUS];
    struct share_node e = *n;
    for (int32_t g = 0; g < n->gpus; g++)
        full[g] = SHARE_MILLI;
    e.gpu_free = full;
    e.cpu_free = e.cpu_cap;
    e.mem_free = e.mem_cap;
    return share_fits(&e, d);
}

/* J's demand with the types it may still use (out of memory removes some);
 * kept as given while nothing was removed, so that it matches its type in
 * the workload. */
struct share_demand sim_share_demand_now(const struct sim *s, uint32_t j)
{
    struct share_demand d = s->share->demand[j];
    uint32_t all =
        s->cluster->ntypes >= 32 ? UINT32_MAX : (1u << s->cluster->ntypes) - 1u;
    uint32_t given = d.allowed ? d.allowed : all;
    if ((given & sim_job_at(s, j)->allowed) != given)
        d.allowed = given & sim_job_at(s, j)->allowed;
    return d;
}

int sim_share_fits_somewhere(const struct sim *s, uint32_t j)
{
    struct share_demand d = sim_share_demand_now(s, j);
    if (!d.allowed && sim_job_at(s, j)->allowed == 0)
        return 0;
    for (int32_t i = 0; i < s->share->sc->nnodes; i++)
        if (fits_empty(&s->share->sc->nodes[i], &d))
            return 1;
    return 0;
}

void sim_share_arrival(struct sim *s, uint32_t j)
{
    struct share_demand *d = &s->share->demand[j];
    double u = sim_est_gpu_util(s, j);
    if (!(s->share->util_bound > 0) || !(u >= 0) || d->num_gpus != 1 ||
        d->gpu_milli != SHARE_MILLI)
        return;
    double milli = ceil(SHARE_MILLI * fmin(u, 1) / s->share->util_bound);
    if (milli < SHARE_MILLI)
        d->gpu_milli = milli < 1 ? 1 : (int32_t)milli;
}

static int check_share(struct sim *s, uint32_t j, const struct sim_placement *p,
                       const struct share_demand *d)
{
    const struct cluster *c = s->cluster;
    const struct share_alloc *a = p->share;
    if (!a || p->nseg != 1 || p->seg[0].gpus != 1)
        return sim_refuse(s,
                          "job %u asks a share of one GPU: the placement "
                          "must name one node and one GPU",
                          j);
    if (p->gpu_type < 0 || p->gpu_type >= c->ntypes ||
        !(sim_job_at(s, j)->allowed & (1u << p->gpu_type)))
        return sim_refuse(s, "job %u may not run on GPU type %d", j,
                          p->gpu_type);
    if (a->node != p->seg[0].node || a->node < 0 || a->node >= c->nnodes ||
        c->nodes[a->node].gpu_type != p->gpu_type || a->gpu < 0 ||
        a->gpu >= c->nodes[a->node].gpus)
        return sim_refuse(s, "job %u: no GPU %d of type %s on node %d", j,
                          a->gpu, c->types[p->gpu_type].name, a->node);
    const struct share_node *n = &s->share->sc->nodes[a->node];
    if (!share_fits(n, d) || !share_gpu_fits(n, d, a->gpu))
        return sim_refuse(s,
                          "job %u: GPU %d of node %d cannot hold %d "
                          "milli-GPU with its CPU and memory now",
                          j, a->gpu, a->node, d->gpu_milli);
    return 0;
}

int sim_share_check(struct sim *s, uint32_t j, const struct sim_placement *p)
{
    struct share_demand d = sim_share_demand_now(s, j);
    if (d.gpu_milli < SHARE_MILLI)
        return check_share(s, j, p, &d);
    if (!p->share) /* the lowest fully free GPUs of each node: checked */
        return 0;
    const struct share_node *n = &s->share->sc->nodes[p->seg[0].node];
    uint64_t m = p->share->mask;
    int bad = p->nseg != 1 || p->share->node != p->seg[0].node ||
              p->share->gpu >= 0 || __builtin_popcountll(m) != d.num_gpus ||
              (n->gpus < 64 && m >> n->gpus);
    for (int32_t g = 0; !bad && g < n->gpus; g++)
        bad = (m >> g & 1u) && n->gpu_free[g] != SHARE_MILLI;
    if (bad || !share_fits(n, &d))
        return sim_refuse(s,
                          "job %u: the whole GPUs named on node %d are "
                          "not %d free ones with its CPU and memory",
                          j, p->seg[0].node, d.num_gpus);
    return 0;
}

/* Takes or gives back (SIGN -1 or 1) job J's resources at A and moves the
 * engine's counts of fully free and busy GPUs along. */
static void account(struct sim *s, uint32_t j, const struct share_alloc *a,
                    const struct share_demand *d, int sign)
{
    struct sim_share *x = s->share;
    struct share_node *n = &x->sc->nodes[a->node];
    int32_t full_before = 0, full_after = 0, t = n->gpu_type;
    for (int32_t g = 0; g < n->gpus; g++)
        full_before += n->gpu_free[g] == SHARE_MILLI;
    if (sign < 0)
        share_take(x->sc, d, a);
    else
        share_give(x->sc, d, a);
    for (int32_t g = 0; g < n->gpus; g++)
        full_after += n->gpu_free[g] == SHARE_MILLI;
    if (full_after != full_before)
        sim_node_add_free(s, a->node, full_after - full_before);
    s->busy -= full_after - full_before;
    s->busy_by_type[t] -= full_after - full_before;
    x->dirty[a->node] = 1;
    (void)j;
}

/* Brings J's work left up to now at its current speed. */
static void progress(struct sim *s, uint32_t j)
{
    struct sim_share *x = s->share;
    struct sim_job *job = sim_job_at(s, j);
    if (s->now <= x->last[j])
        return;
    double done = (s->now - x->last[j]) * x->speed[j] / job->unit_s;
    job->work_left = job->work_left > done ? job->work_left - done : 0;
    x->last[j] = s->now;
}

double sim_share_work_left(const struct sim *s, uint32_t j)
{
    const struct sim_share *x = s->share;
    const struct sim_job *job = sim_job_at(s, j);
    if (s->now <= x->last[j])
        return job->work_left;
    double done = (s->now - x->last[j]) * x->speed[j] / job->unit_s;
    return job->work_left > done ? job->work_left - done : 0;
}

static void reschedule(struct sim *s, uint32_t j)
{
    struct sim_job *job = sim_job_at(s, j);
    struct sim_share *x = s->share;
    double from = x->last[j] > s->now ? x->last[j] : s->now;
    sim_run_stale(s, j, job);
    if (sim_heap_push(&s->heap,
                      from + job->work_left * job->unit_s / x->speed[j],
                      SIM_EV_FINISH, j, job->epoch))
        s->oom = 1;
}

/* New speeds for the jobs on global GPU G (one came or went). */
static void respeed(struct sim *s, int32_t g, int32_t gpu_type)
{
    struct sim_share *x = s->share;
    int company = x->gpu_head[g] >= 0 && x->next_on_gpu[x->gpu_head[g]] >= 0;
    for (int32_t a = x->gpu_head[g]; a >= 0; a = x->next_on_gpu[a]) {
        double v = 1;
        if (sim_job_at(s, a)->doomed)
            continue;
        progress(s, (uint32_t)a);
        for (int32_t b = x->gpu_head[g]; b >= 0; b = x->next_on_gpu[b]) {
            if (b == a)
                continue;
            double f =
                x->pair_speed(x->ctx, gpu_type, (uint32_t)a, (uint32_t)b);
            SIM_ASSERT(f > 0 && f <= 1);
            v *= f;
        }
        /* Many small shares on one GPU: no product underflows to a stop. */
        x->speed[a] = v > SHARE_MIN_SPEED ? v : SHARE_MIN_SPEED;
        x->shared[a] |= (uint8_t)company;
        reschedule(s, (uint32_t)a);
    }
}

/* Whole GPUs: the lowest fully free ones of each piece of J's placement. */
static void take_whole(struct sim *s, uint32_t j, const struct share_alloc *a)
{
    struct sim_share *x = s->share;
    const struct share_demand *d = &x->demand[j];
    for (int32_t i = sim_job_at(s, j)->seg; i >= 0; i = s->segs[i].next) {
        struct sim_seg_slot *slot = &s->segs[i];
        struct share_demand part = *d;
        struct share_alloc at = {slot->node, -1, 0};
        part.num_gpus = slot->gpus;
        if (i != sim_job_at(s, j)->seg) /* CPU and memory go with the first */
            part.cpu_milli = 0, part.memory_mib = 0;
        if (a && i == sim_job_at(s, j)->seg)
            at.mask = a->mask;
        else
            share_whole_gpus(&x->sc->nodes[slot->node], &part, &at.mask);
        slot->mask = at.mask;
        account(s, j, &at, &part, -1);
        if (i == sim_job_at(s, j)->seg)
            x->alloc[j] = at;
    }
}

void sim_share_give_piece(struct sim *s, uint32_t j,
                          const struct sim_seg_slot *slot, int first)
{
    struct share_demand part = s->share->demand[j];
    struct share_alloc at = {slot->node, -1, slot->mask};
    if (part.gpu_milli < SHARE_MILLI)
        return; /* a share: sim_share_release */
    part.num_gpus = slot->gpus;
    if (!first)
        part.cpu_milli = 0, part.memory_mib = 0;
    account(s, j, &at, &part, 1);
}

int sim_share_start(struct sim *s, uint32_t j, const struct sim_placement *p,
                    double overhead, int doomed)
{
    struct sim_share *x = s->share;
    struct sim_job *job = sim_job_at(s, j);
    x->speed[j] = 1;
    x->last[j] = s->now + overhead;
    if (x->demand[j].gpu_milli == SHARE_MILLI) {
        take_whole(s, j, p->share);
        double run =
            doomed ? s->oom_detect_s : overhead + job->work_left * job->unit_s;
        return sim_heap_push(&s->heap, s->now + run,
                             doomed ? SIM_EV_OOM : SIM_EV_FINISH, j,
                             job->epoch);
    }
    const struct share_alloc *a = p->share;
    struct share_demand d = sim_share_demand_now(s, j);
    account(s, j, a, &d, -1);
    x->alloc[j] = *a;
    int32_t g = x->gpu_base[a->node] + a->gpu;
    x->next_on_gpu[j] = x->gpu_head[g];
    x->gpu_head[g] = (int32_t)j;
    if (doomed && sim_heap_push(&s->heap, s->now + s->oom_detect_s, SIM_EV_OOM,
                                j, job->epoch))
        return SIM_ENOMEM;
    respeed(s, g, p->gpu_type);
    return s->oom ? SIM_ENOMEM : 0;
}

void sim_share_release(struct sim *s, uint32_t j)
{
    struct sim_share *x = s->share;
    const struct share_alloc *a = &x->alloc[j];
    struct share_demand d = sim_share_demand_now(s, j);
    if (a->gpu < 0) /* whole GPUs: sim_share_give_piece gave them back */
        return;
    account(s, j, a, &d, 1);
    int32_t g = x->gpu_base[a->node] + a->gpu;
    int32_t *p = &x->gpu_head[g];
    while (*p != (int32_t)j)
        p = &x->next_on_gpu[*p];
    *p = x->next_on_gpu[j];
    x->next_on_gpu[j] = -1;
    respeed(s, g, s->cluster->nodes[a->node].gpu_type);
}

void sim_share_instant(struct sim *s)
{
    struct sim_share *x = s->share;
    double f = 0;
    x->used_area += x->last_used * (s->now - x->last_t);
    x->frag_area += x->last_frag * (s->now - x->last_t);
    for (int32_t i = 0; i < x->sc->nnodes; i++) {
        if (x->dirty[i])
            x->node_frag[i] = share_node_frag(&x->sc->nodes[i], x->w);
        x->dirty[i] = 0;
        f += x->node_frag[i];
    }
    x->last_t = s->now;
    x->last_used = (double)x->sc->used_milli;
    x->last_frag = f;
}

double sim_share_frag_gpus(const struct sim *s)
{
    return s->share->last_frag / SHARE_MILLI;
}

void sim_share_summarize(const struct sim *s, struct sim_summary *out)
{
    const struct sim_share *x = s->share;
    double work = 0;
    out->sharing = 1;
    out->jobs_shared = 0;
    for (size_t i = 0; i < s->njobs; i++) {
        const struct sim_job *j = sim_job_at(s, i);
        out->jobs_shared += x->shared[i];
        if (j->state != JOB_COMPLETED)
            continue;
        const struct sim_class_spec *cl = &s->classes[j->job_class];
        double unit = cl->unit_s[j->gpu_type] > 0
                          ? cl->unit_s[j->gpu_type]
                          : cl->spread_unit_s[j->gpu_type];
        work += (double)x->demand[i].num_gpus * x->demand[i].gpu_milli *
                j->work * unit;
    }
    out->gpu_utilization = out->effective_utilization = 0;
    out->frag_rate_mean = 0;
    if (out->makespan_s > 0) {
        double all = (double)x->sc->total_milli * out->makespan_s;
        out->gpu_utilization = x->used_area / all;
        out->effective_utilization = work / all;
        out->frag_rate_mean = x->frag_area / all;
    }
}

int32_t sim_job_gpu_milli(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    return s->share ? s->share->demand[job].gpu_milli : SHARE_MILLI;
}
