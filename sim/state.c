/* state.c -- the engine's bookkeeping: creating it, adding jobs, free GPUs,
 * and the read-only view a policy gets. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim_internal.h"

/* sim.h's layout of a job by cache lines, which the engine's prefetch and
 * the 64-byte alignment of the chunks rely on. */
_Static_assert(sizeof(struct sim_job) == 192 &&
                   offsetof(struct sim_job, work) == 64,
               "struct sim_job: 3 cache lines, `work` opening the second");

const char *sim_strerror(int code)
{
    switch (code) {
    case 0: return "success";
#define SIM_ERRNO_TEXT(name, value, text)                                      \
    case value: return text;
        SIM_ERRNO_MAP(SIM_ERRNO_TEXT)
#undef SIM_ERRNO_TEXT
    }
    return "unknown error";
}

struct sim *sim_create(const struct cluster *c, uint64_t seed)
{
    struct sim *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cluster = c;
    s->seed = seed;
    s->queue_head = s->queue_tail = -1;
    s->oom_detect_s = SIM_OOM_DETECT_S_DEFAULT;
    s->seg_free = -1;
    size_t n = (size_t)c->nnodes;
    s->node_free = malloc(n * sizeof *s->node_free);
    s->node_leaf = malloc(n * sizeof *s->node_leaf);
    s->node_stamp = calloc(n, sizeof *s->node_stamp);
    if (!s->node_free || !s->node_leaf || !s->node_stamp)
        goto fail;
    for (int32_t t = 0; t < c->ntypes; t++) {
        if (sim_freemap_init(&s->maps[t], c, t) != 0)
            goto fail;
        for (int32_t leaf = 0; leaf < s->maps[t].n; leaf++)
            s->node_leaf[s->maps[t].nodes[leaf]] = leaf;
    }
    for (size_t i = 0; i < n; i++)
        s->node_free[i] = c->nodes[i].gpus;
    struct sim_class_spec base = {{0}, {0}};
    for (int32_t t = 0; t < c->ntypes; t++) {
        base.unit_s[t] = c->types[c->reference].speed / c->types[t].speed;
        base.spread_unit_s[t] = base.unit_s[t] * c->spread_slowdown;
    }
    int32_t id;
    if (sim_add_class(s, &base, &id) != 0)
        goto fail;
    return s;
fail:
    sim_destroy(s);
    return NULL;
}

void sim_destroy(struct sim *s)
{
    if (!s)
        return;
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++)
        sim_freemap_free(&s->maps[t]);
    sim_heap_free(&s->heap);
    for (size_t c = 0; c < s->chunks_cap; c++)
        free(s->chunks[c]);
    free(s->chunks);
    sim_stream_free(s);
    free(s->drop_why);
    free(s->rates);
    free(s->order);
    free(s->epochs);
    free(s->qlink);
    free(s->node_free);
    free(s->node_leaf);
    free(s->node_stamp);
    free(s->segs);
    free(s->classes);
    free(s->est_runtime);
    sim_frag_free(s);
    sim_estimates_free(s);
    sim_share_free(s);
    free(s);
}

int sim_add_class(struct sim *s, const struct sim_class_spec *spec, int32_t *id)
{
    for (int32_t t = 0; t < SIM_MAX_GPU_TYPES; t++)
        if (!(spec->unit_s[t] >= 0 && spec->unit_s[t] < INFINITY) ||
            !(spec->spread_unit_s[t] >= 0 && spec->spread_unit_s[t] < INFINITY))
            return SIM_EINVAL;
    if (s->ran || s->nclasses == INT32_MAX)
        return SIM_EINVAL;
    if (s->nclasses == s->classes_cap) {
        int32_t cap = s->classes_cap ? 2 * s->classes_cap : 16;
        struct sim_class_spec *cl =
            realloc(s->classes, (size_t)cap * sizeof *cl);
        if (!cl)
            return SIM_ENOMEM;
        s->classes = cl;
        s->classes_cap = cap;
    }
    s->classes[s->nclasses] = *spec;
    *id = s->nclasses++;
    return 0;
}

int sim_set_class_rate(struct sim *s, int32_t cls, const double *rate)
{
    if (s->ran || cls < 0 || cls >= s->nclasses)
        return SIM_EINVAL;
    for (int32_t t = 0; t < s->cluster->ntypes; t++)
        if (!(rate[t] >= 0) || !(rate[t] < INFINITY))
            return SIM_EINVAL;
    if (cls >= s->nrates) {
        double(*r)[SIM_MAX_GPU_TYPES] =
            realloc(s->rates, (size_t)s->nclasses * sizeof *r);
        if (!r)
            return SIM_ENOMEM;
        memset(r + s->nrates, 0, (size_t)(s->nclasses - s->nrates) * sizeof *r);
        s->rates = r;
        s->nrates = s->nclasses;
    }
    for (int32_t t = 0; t < s->cluster->ntypes; t++)
        s->rates[cls][t] = rate[t];
    return 0;
}

double sim_class_rate(const struct sim *s, int32_t cls, int32_t t)
{
    SIM_ASSERT(cls >= 0 && cls < s->nclasses && t >= 0 &&
               t < s->cluster->ntypes);
    return cls < s->nrates ? s->rates[cls][t] : 0;
}

/* The types whose class can run the job at all, on one node or spread. */
static uint32_t runnable_types(const struct sim *s, int32_t cls)
{
    uint32_t mask = 0;
    for (int32_t t = 0; t < s->cluster->ntypes; t++)
        if (s->classes[cls].unit_s[t] > 0 ||
            s->classes[cls].spread_unit_s[t] > 0)
            mask |= 1u << t;
    return mask;
}

int sim_add_job(struct sim *s, const struct sim_job_spec *spec)
{
    uint32_t all =
        s->cluster->ntypes >= 32 ? UINT32_MAX : (1u << s->cluster->ntypes) - 1u;
    if ((s->ran && !s->stream) || !(spec->submit_time >= 0) ||
        !(spec->work > 0) || !(spec->submit_time < INFINITY) ||
        !(spec->work < INFINITY) || spec->num_gpus < 1 ||
        (spec->allowed & ~all) || spec->job_class < 0 ||
        spec->job_class >= s->nclasses || !(spec->est_work >= 0) ||
        !(spec->est_work < INFINITY) || !(spec->gpu_mem_mb >= 0) ||
        !(spec->gpu_mem_mb < INFINITY) || !(spec->est_mem_mb >= 0) ||
        !(spec->est_mem_mb < INFINITY) || s->njobs >= INT32_MAX)
        return SIM_EINVAL;
    struct sim_job *job = sim_new_job(s);
    if (!job)
        return SIM_ENOMEM;
    /* written in place: no copy through the stack */
    *job = (struct sim_job){
        .submit_time = spec->submit_time,
        .work = spec->work,
        .start_time = -1,
        .finish_time = -1,
        .work_left = spec->work,
        .trace_index = spec->trace_index,
        .allowed = (spec->allowed ? spec->allowed : all) &
                   runnable_types(s, spec->job_class),
        .job_class = spec->job_class,
        .est_work = spec->est_work,
        .gpu_mem_mb = spec->gpu_mem_mb,
        .est_mem_mb = spec->est_mem_mb,
        .restart_s = -1,
        .num_gpus = spec->num_gpus,
        .gpu_type = -1,
        .seg = -1,
        .state = JOB_SUBMITTED,
    };
    s->njobs++;
    return 0;
}

/* A slot in the wait queue's links for job njobs, out of the queue; the
 * ring doubles when the jobs not retired, that one too, outgrow it. 0 or
 * -1 when out of memory. */
static int qlink_add(struct sim *s)
{
    size_t first = sim_stream_nretired(s),
           cap = s->qlink ? s->qlink_mask + 1 : 0;
    if (s->njobs + 1 - first > cap) {
        size_t grown = cap ? 2 * cap : 1024;
        struct sim_qlink *q = malloc(grown * sizeof *q);
        if (!q)
            return -1;
        for (size_t j = first; j < s->njobs; j++)
            q[j & (grown - 1)] = *sim_qlink_at(s, j);
        free(s->qlink);
        s->qlink = q;
        s->qlink_mask = grown - 1;
    }
    *sim_qlink_at(s, s->njobs) = (struct sim_qlink){-1, -1};
    return 0;
}

struct sim_job *sim_new_job(struct sim *s)
{
    if (qlink_add(s) != 0)
        return NULL;
    size_t c = s->njobs >> SIM_CHUNK_BITS;
    if (c >= s->chunks_cap) {
        size_t cap = s->chunks_cap ? 2 * s->chunks_cap : 64;
        struct sim_job **chunks = realloc(s->chunks, cap * sizeof *chunks);
        if (!chunks)
            return NULL;
        memset(chunks + s->chunks_cap, 0,
               (cap - s->chunks_cap) * sizeof *chunks);
        s->chunks = chunks;
        s->chunks_cap = cap;
    }
    if (!s->chunks[c] && s->stream) /* a retired chunk, pages kept */
        s->chunks[c] = sim_stream_spare(s);
    /* aligned: a job's first 64 bytes, one line; on 2 MB pages, whole
     * ones in a streaming run, whose few chunks are reused (hugepage.c) */
    if (!s->chunks[c] &&
        !(s->chunks[c] = sim_huge_alloc(SIM_CHUNK * sizeof *s->chunks[c],
                                        s->stream != NULL)))
        return NULL;
    return sim_job_at(s, s->njobs);
}

struct arrival_key {
    double time;
    uint32_t job;
};

static int by_submit(const void *a, const void *b)
{
    const struct arrival_key *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->job < y->job ? -1 : x->job > y->job;
}

int sim_sort_arrivals(struct sim *s)
{
    s->order = malloc((s->njobs ? s->njobs : 1) * sizeof *s->order);
    if (!s->order)
        return SIM_ENOMEM;
    int sorted = 1;
    for (size_t i = 0; i < s->njobs; i++) {
        s->order[i] = (uint32_t)i;
        if (i > 0 &&
            sim_job_at(s, i)->submit_time < sim_job_at(s, i - 1)->submit_time)
            sorted = 0;
    }
    if (sorted)
        return 0;
    /* qsort is not stable, but the job id breaks every tie. */
    struct arrival_key *keys = malloc(s->njobs * sizeof *keys);
    if (!keys)
        return SIM_ENOMEM;
    for (size_t i = 0; i < s->njobs; i++)
        keys[i] =
            (struct arrival_key){sim_job_at(s, i)->submit_time, (uint32_t)i};
    qsort(keys, s->njobs, sizeof *keys, by_submit);
    for (size_t i = 0; i < s->njobs; i++)
        s->order[i] = keys[i].job;
    free(keys);
    return 0;
}

int sim_job_fits_somewhere(const struct sim *s, uint32_t j)
{
    const struct cluster *c = s->cluster;
    const struct sim_job *job = sim_job_at(s, j);
    if (s->share)
        return sim_share_fits_somewhere(s, j);
    for (int32_t t = 0; t < c->ntypes; t++)
        if ((job->allowed & (1u << t)) && job->num_gpus <= c->types[t].gpus)
            return 1;
    return 0;
}

void sim_node_add_free(struct sim *s, int32_t node, int32_t gpus)
{
    if (s->frag)
        sim_frag_update(s, node, s->node_free[node], s->node_free[node] + gpus);
    s->node_free[node] += gpus;
    int32_t t = s->cluster->nodes[node].gpu_type;
    sim_freemap_set(&s->maps[t], s->node_leaf[node], s->node_free[node]);
}

int sim_take_gpus(struct sim *s, uint32_t j, const struct sim_placement *p)
{
    if (s->segs_cap - s->nsegs < p->nseg) {
        int32_t cap = s->segs_cap ? s->segs_cap : 256;
        while (cap - s->nsegs < p->nseg)
            cap *= 2;
        struct sim_seg_slot *segs =
            realloc(s->segs, (size_t)cap * sizeof *segs);
        if (!segs)
            return SIM_ENOMEM;
        s->segs = segs;
        s->segs_cap = cap;
    }
    int32_t head = -1;
    for (int32_t i = p->nseg - 1; i >= 0; i--) {
        int32_t slot = s->seg_free;
        if (slot >= 0)
            s->seg_free = s->segs[slot].next;
        else
            slot = s->nsegs++;
        s->segs[slot] = (struct sim_seg_slot){p->seg[i].node, p->seg[i].gpus,
                                              head, 0};
        head = slot;
        if (!s->share) /* else sim_share_start counts milli-GPUs */
            sim_node_add_free(s, p->seg[i].node, -p->seg[i].gpus);
    }
    sim_job_at(s, j)->seg = head;
    return 0;
}

double sim_now(const struct sim *s)
{
    return s->now;
}
const struct cluster *sim_cluster(const struct sim *s)
{
    return s->cluster;
}
size_t sim_njobs(const struct sim *s)
{
    return s->njobs;
}
uint64_t sim_events(const struct sim *s)
{
    return s->events;
}
int32_t sim_queue_head(const struct sim *s)
{
    return s->queue_head;
}
size_t sim_queue_len(const struct sim *s)
{
    return s->queue_len;
}

const struct sim_job *sim_job(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    SIM_ASSERT(!s->stream || !sim_stream_retired(s, job)); /* gone */
    return sim_job_at(s, job);
}

void sim_job_prefetch(const struct sim *s, uint32_t job)
{
    if (job >= s->njobs || s->stream)
        return; /* a streaming run's may be gone */
    const char *r = (const char *)sim_job_at(s, job);
    __builtin_prefetch(r);
    __builtin_prefetch(r + 64);
    __builtin_prefetch(r + 128);
}

int32_t sim_queue_next(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    SIM_ASSERT(!s->stream || !sim_stream_retired(s, job)); /* its slot */
    return sim_qlink_at(s, job)->next;
}

int32_t sim_free_gpus(const struct sim *s, int32_t gpu_type)
{
    SIM_ASSERT(gpu_type >= 0 && gpu_type < s->cluster->ntypes);
    return s->maps[gpu_type].free_total;
}

int32_t sim_node_free(const struct sim *s, int32_t node)
{
    SIM_ASSERT(node >= 0 && node < s->cluster->nnodes);
    return s->node_free[node];
}

int32_t sim_find_node(const struct sim *s, int32_t gpu_type, int32_t need)
{
    SIM_ASSERT(gpu_type >= 0 && gpu_type < s->cluster->ntypes);
    const struct sim_freemap *m = &s->maps[gpu_type];
    int32_t leaf = sim_freemap_find(m, need);
    return leaf < 0 ? -1 : m->nodes[leaf];
}

const int32_t *sim_type_nodes(const struct sim *s, int32_t gpu_type,
                              int32_t *count)
{
    SIM_ASSERT(gpu_type >= 0 && gpu_type < s->cluster->ntypes);
    *count = s->maps[gpu_type].n;
    return s->maps[gpu_type].nodes;
}

void sim_set_restart_overhead(struct sim *s, double seconds)
{
    SIM_ASSERT(!s->ran && seconds >= 0 && seconds < INFINITY);
    s->restart_overhead = seconds;
}

void sim_set_job_restart_overhead(struct sim *s, uint32_t job, double seconds)
{
    SIM_ASSERT(!s->ran && job < s->njobs && seconds >= 0 && seconds < INFINITY);
    sim_job_at(s, job)->restart_s = seconds;
}

double sim_attained_s(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    const struct sim_job *j = sim_job_at(s, job);
    return j->run_s + (j->state == JOB_RUNNING ? s->now - j->last_start : 0);
}

double sim_work_left(const struct sim *s, uint32_t job)
{
    SIM_ASSERT(job < s->njobs);
    const struct sim_job *j = sim_job_at(s, job);
    if (j->state != JOB_RUNNING || j->doomed ||
        j->slice == 1 + SIM_RUN_NO_PROGRESS) /* a run that does nothing */
        return j->work_left;
    if (s->share)
        return sim_share_work_left(s, job);
    return sim_run_work_left(j, s->now);
}

const struct sim_class_spec *sim_class(const struct sim *s, int32_t cls)
{
    SIM_ASSERT(cls >= 0 && cls < s->nclasses);
    return &s->classes[cls];
}

int32_t sim_nclasses(const struct sim *s)
{
    return s->nclasses;
}

double sim_runtime_on(const struct sim *s, uint32_t job, int32_t gpu_type,
                      int spread)
{
    SIM_ASSERT(job < s->njobs && gpu_type >= 0 &&
               gpu_type < s->cluster->ntypes);
    const struct sim_job *j = sim_job_at(s, job);
    const struct sim_class_spec *cl = &s->classes[j->job_class];
    return j->work * (spread ? cl->spread_unit_s : cl->unit_s)[gpu_type];
}
