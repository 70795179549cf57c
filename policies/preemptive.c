/* preemptive.c -- the preemptive priority scheduler behind srtf and las. A
 * policy gives each job a priority (pol_prio_fn, lower = more urgent); jobs
 * rank by (priority now, submit time, id), and "worse" means later in that
 * total order. At each scheduling pass (after the events of an instant, and
 * at the wake-ups asked for below):
 *  1. Waiting jobs are taken best first. A job W that pol_place can place
 *     now, by the configured placement rule, starts there.
 *  2. Otherwise, for each GPU type t W may run on, its victims on t are the
 *     running jobs on t worse than W, worst first, as few as make room:
 *     until free(t) plus their GPUs reach num_gpus(W), when W needs one GPU
 *     or its class may spread over nodes of t; else until one node of t
 *     would have num_gpus(W) free, counting the victims wholly on it (never
 *     a spread one), and only those are victims. If all worse jobs on t do
 *     not make room, t has none: nothing is preempted for a job that would
 *     still not fit, and a victim always frees GPUs of a type W can use.
 *     W takes the type whose most urgent victim is the least urgent (for a
 *     1-GPU job: the worst running job on a type it can use), preempts those
 *     victims (sim_preempt: they keep their work, wait again, and pay the
 *     restart overhead at their next start) and starts on their GPUs.
 *  3. A job that can neither is passed over; later jobs may start on GPUs
 *     it cannot use (nothing is reserved). The pass ends when the queue is
 *     exhausted, or when no GPU is free and the best waiting job is not
 *     better than the worst running one. Jobs preempted in a pass wait in
 *     the queue and are considered later in the same pass.
 * A job started in a pass is never a victim in it: with priorities that
 * keep pol_prio_fn's contract it cannot be, and if one jumps at a start,
 * SIM_EDECISION beats two jobs preempting each other for ever. Wake-ups:
 * at the earliest `until` or pol_repass_fn time, unless one is due by then.
 * Cost: waiting jobs in a min-queue, running ones in max-queues per (GPU
 * type, rate), keyed prio - rate * t; the queues are runq.c's sorted runs,
 * so a pass, which takes waiting jobs best first and victims worst first
 * and files them in those orders, pops and pushes at O(1) plus O(log R)
 * for R runs (O(log n) at worst). A pass costs that per job started,
 * preempted or passed over and O(groups) per job looked at; the early stop
 * ends it at once on a full cluster, but jobs that can neither start nor
 * preempt (free GPUs or victims of the wrong type) are walked past. A
 * one-GPU job that takes a one-GPU victim's place is started on its GPU in
 * one engine call (sim_swap), when the placement rule could only choose
 * that GPU: the same results as a preemption and a start. The swaps that
 * open a pass on a full one-type cluster file their jobs in bulk
 * (preempt_swaps.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preempt_internal.h"

/* The heaps are 4-ary (children of i: 4i + 1 to 4i + 4): half the depth
 * of a binary heap, so a pop moves half as many items. The hot loops keep
 * the heap's fields in locals: stores into the items could alias them. */
#define PARENT(i) (((i) - 1) / 4)

/* Whether X belongs above Y in a heap with the worst on top (MAX) or not. */
static inline int higher(int max, const struct rq_item *x,
                         const struct rq_item *y)
{
    return max ? pol_pre_before(y->key, y, x->key, x)
               : pol_pre_before(x->key, x, y->key, y);
}

/* The child of I among the first N items that belongs highest, or
 * UINT32_MAX for a leaf. */
static inline uint32_t top_child(const struct rq_item *a, uint32_t n, int max,
                                 uint32_t i)
{
    uint32_t c = 4 * i + 1, end = c + 4 < n ? c + 4 : n;
    if (c >= n)
        return UINT32_MAX;
    for (uint32_t k = c + 1; k < end; k++)
        if (higher(max, &a[k], &a[c]))
            c = k;
    return c;
}

static void sift_up(struct pheap *h, uint32_t i)
{
    struct rq_item *a = h->a, e = a[i];
    int max = h->max;
    while (i > 0 && higher(max, &e, &a[PARENT(i)])) {
        a[i] = a[PARENT(i)];
        i = PARENT(i);
    }
    a[i] = e;
}

static int heap_push(struct pheap *h, struct rq_item e)
{
    if (h->len == h->cap) {
        struct rq_item *a =
            realloc(h->a, (2 * (size_t)h->cap + 64) * sizeof *a);
        if (!a)
            return SIM_ENOMEM;
        h->a = a;
        h->cap = 2 * h->cap + 64;
    }
    h->a[h->len] = e;
    sift_up(h, h->len++);
    return 0;
}

/* Takes the top of H out (Floyd's bottom-up way: the hole goes down to a
 * leaf along the children that belong higher, three comparisons a level, and
 * the last item rises from there; it belongs near the bottom). */
static struct rq_item heap_pop(struct pheap *h)
{
    struct rq_item *a = h->a, out = a[0], last = a[--h->len];
    uint32_t i = 0, n = h->len;
    int max = h->max;
    if (n == 0)
        return out;
    for (uint32_t c; (c = top_child(a, n, max, i)) != UINT32_MAX; i = c)
        a[i] = a[c];
    while (i > 0 && higher(max, &last, &a[PARENT(i)])) {
        a[i] = a[PARENT(i)];
        i = PARENT(i);
    }
    a[i] = last;
    return out;
}

/* A rekey is stale once its job was filed again or left. */
static int rekey_stale(const struct pol_preempt *p, const struct rq_item *r)
{
    const struct slot *sl = &p->slots[r->job];
    return sl->stamp != r->rank || sl->heap < 0;
}

/* The running group of TYPE and RATE, made on first use; -1 if no memory. */
static int32_t group_of(struct pol_preempt *p, int32_t type, double rate)
{
    for (int32_t g = 0; g < p->ngroups; g++)
        if (p->groups[g].type == type && p->groups[g].rate == rate)
            return g;
    if (p->ngroups == p->groups_cap) {
        struct group *a =
            realloc(p->groups, (2 * (size_t)p->groups_cap + 8) * sizeof *a);
        if (!a)
            return -1;
        p->groups = a;
        p->groups_cap = 2 * p->groups_cap + 8;
    }
    p->groups[p->ngroups].type = type;
    p->groups[p->ngroups].rate = rate;
    rq_init(&p->groups[p->ngroups].q, (uint32_t)p->ngroups + 2, 1);
    return p->ngroups++;
}

int pol_pre_file(struct pol_preempt *p, struct sim *s, uint32_t job,
                 struct rq_item *e, int32_t *idx)
{
    const struct sim_job *j = sim_job(s, job);
    double now = sim_now(s), rate = 0, until = INFINITY;
    double prio =
        p->prio_kind != PRE_PRIO_FN
            ? pol_las_prio(j, now, p->prio_kind == PRE_PRIO_LAS_GPU_TIME, &rate,
                           &until)
            : p->prio(p->ctx, s, job, &rate, &until);
    *e = (struct rq_item){prio, p->rank[job], job};
    *idx = 0;
    if (j->state == JOB_RUNNING) {
        *idx = group_of(p, j->gpu_type, rate) + 1;
        if (*idx == 0)
            return SIM_ENOMEM;
        e->key = prio - rate * now;
    }
    struct slot *sl = &p->slots[job];
    *sl = (struct slot){prio, now, *idx, sl->node, sl->stamp + 1, sl->pass};
    if (until > now && until < INFINITY)
        return heap_push(&p->rekeys, (struct rq_item){until, sl->stamp, job});
    return 0;
}

/* Files JOB by its state and its priority now. 0 or SIM_ENOMEM. */
static int insert(struct pol_preempt *p, struct sim *s, uint32_t job)
{
    struct rq_item e;
    int32_t idx;
    int rc = pol_pre_file(p, s, job, &e, &idx);
    if (rc)
        return rc;
    struct rq *q = idx ? &p->groups[idx - 1].q : &p->waiting;
    return rq_push(q, p->where, e) != 0 ? SIM_ENOMEM : 0;
}

static struct rq_item detach(struct pol_preempt *p, uint32_t job)
{
    struct slot *sl = &p->slots[job];
    struct rq *q = sl->heap ? &p->groups[sl->heap - 1].q : &p->waiting;
    sl->heap = -1;
    return rq_remove(q, p->where, job);
}

/* The group holding the worst running job, on TYPE (or on any type when
 * TYPE < 0); -1 when there is none. *prio receives its priority now. */
static int32_t worst_group(const struct pol_preempt *p, int32_t type,
                           double now, double *prio)
{
    int32_t worst = -1;
    double wk = 0;
    for (int32_t g = 0; g < p->ngroups; g++) {
        const struct group *gr = &p->groups[g];
        const struct rq_item *top = rq_top(&gr->q);
        if (!top || (type >= 0 && gr->type != type))
            continue;
        double k = pol_pre_prio_now(p, gr, top, now);
        if (worst < 0 ||
            pol_pre_before(wk, rq_top(&p->groups[worst].q), k, top)) {
            worst = g;
            wk = k;
        }
    }
    *prio = wk;
    return worst;
}

/* victims_on with GPU sharing: room is what the engine says W would find
 * once the victims so far are stopped (sim_share_fits_if_freed); at most
 * as many victims as the cluster has GPUs are weighed. */
static int32_t share_victims_on(struct pol_preempt *p, struct sim *s,
                                const struct rq_item *wi, int32_t t, int32_t at,
                                int32_t *taken, struct rq_item *urgent)
{
    int32_t n = 0, g, cap = sim_cluster(s)->total_gpus - at, room = 0;
    double now = sim_now(s), k;
    uint32_t *ids = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *ids);
    while (ids && n < cap && !room && (g = worst_group(p, t, now, &k)) >= 0 &&
           pol_pre_before(wi->key, wi, k, rq_top(&p->groups[g].q))) {
        struct scratch *v = &p->v[at + n];
        *v = (struct scratch){rq_pop(&p->groups[g].q, p->where), g, 0};
        ids[n++] = v->e.job;
        room = sim_share_fits_if_freed(s, wi->job, ids, (size_t)n);
    }
    free(ids);
    for (int32_t i = 0; i < n; i++)
        p->v[at + i].victim = room;
    if (room) {
        *urgent = p->v[at + n - 1].e;
        urgent->key = pol_pre_prio_now(p, &p->groups[p->v[at + n - 1].group],
                                       &p->v[at + n - 1].e, now);
    }
    *taken = n;
    return room ? n : 0;
}

/* Takes out of their heaps the running jobs on type T worse than waiting
 * job W (item WI), worst first, until they make room (rule 2), into p->v
 * from index AT on; *taken receives their number. Marks the victims among
 * them and returns how many, 0 when T cannot make room; *urgent receives
 * the most urgent victim, keyed by its priority now. */
static int32_t victims_on(struct pol_preempt *p, struct sim *s,
                          const struct rq_item *wi, int32_t t, int32_t at,
                          int32_t *taken, struct rq_item *urgent)
{
    const struct sim_job *w = sim_job(s, wi->job);
    int32_t need = w->num_gpus, freed = sim_free_gpus(s, t);
    int32_t n = 0, ntouched = 0, room = 0, room_node = -1, g;
    int spread = need == 1 || sim_class(s, w->job_class)->spread_unit_s[t] > 0;
    double now = sim_now(s), k;
    if (sim_share_cluster(s))
        return share_victims_on(p, s, wi, t, at, taken, urgent);
    while (!(spread && freed >= need) && !room &&
           (g = worst_group(p, t, now, &k)) >= 0 &&
           pol_pre_before(wi->key, wi, k, rq_top(&p->groups[g].q))) {
        struct scratch *v = &p->v[at + n++];
        *v = (struct scratch){rq_pop(&p->groups[g].q, p->where), g, 0};
        int32_t gpus = sim_job(s, v->e.job)->num_gpus;
        int32_t node = p->slots[v->e.job].node;
        if (spread) {
            freed += gpus;
            room = freed >= need;
        } else if (node >= 0) {
            if (p->node[node].freed == 0)
                p->node[ntouched++].touched = node;
            p->node[node].freed += gpus;
            room = p->node[node].freed + sim_node_free(s, node) >= need;
            room_node = node;
        }
    }
    int32_t victims = 0;
    for (int32_t i = n; i-- > 0;) {
        struct scratch *v = &p->v[at + i];
        v->victim = room && (spread || p->slots[v->e.job].node == room_node);
        if (v->victim && victims++ == 0) {
            *urgent = v->e;
            urgent->key = pol_pre_prio_now(p, &p->groups[v->group], &v->e, now);
        }
    }
    for (int32_t i = 0; i < ntouched; i++)
        p->node[p->node[i].touched].freed = 0;
    *taken = n;
    return victims;
}

/* Puts p->v[FROM, TO) back in their heaps, or only those not victims. */
static void put_back(struct pol_preempt *p, int32_t from, int32_t to,
                     int victims_too)
{
    for (int32_t i = from; i < to; i++)
        if (victims_too || !p->v[i].victim) /* it fits: it was there */
            (void)rq_push(&p->groups[p->v[i].group].q, p->where, p->v[i].e);
}

/* Chooses W's victims (rule 2): they and the jobs taken out with them are
 * left in p->v[0, *taken), the rest put back. Returns how many, or 0. */
static int32_t choose_victims(struct pol_preempt *p, struct sim *s,
                              const struct rq_item *wi, int32_t *taken)
{
    const struct sim_job *w = sim_job(s, wi->job);
    const struct cluster *c = sim_cluster(s);
    struct rq_item best = {0, 0, 0}, urgent;
    int32_t nbest = 0, n;
    *taken = 0;
    for (int32_t t = 0; t < c->ntypes; t++) {
        if (!(w->allowed & (1u << t)) || c->types[t].gpus < w->num_gpus)
            continue;
        int32_t k = victims_on(p, s, wi, t, *taken, &n, &urgent);
        if (k > 0 && (nbest == 0 ||
                      pol_pre_before(best.key, &best, urgent.key, &urgent))) {
            put_back(p, 0, *taken, 1); /* a better type than the last */
            memmove(p->v, p->v + *taken, (size_t)n * sizeof *p->v);
            *taken = n;
            nbest = k;
            best = urgent;
        } else
            put_back(p, *taken, *taken + n, 1);
    }
    return nbest;
}

/* Stops the victims among p->v[0, n), worst first, and files them as
 * waiting; the others go back to their heaps. */
static int preempt_victims(struct pol_preempt *p, struct sim *s, int32_t n)
{
    put_back(p, 0, n, 0);
    for (int32_t i = 0; i < n; i++) {
        uint32_t v = p->v[i].e.job;
        if (!p->v[i].victim)
            continue;
        if (p->slots[v].pass == p->pass)
            return SIM_EDECISION; /* its priority jumped when it started */
        p->slots[v].heap = -1;
        p->busy -= sim_job(s, v)->num_gpus;
        int rc = sim_preempt(s, v);
        if (rc || (rc = insert(p, s, v)) != 0)
            return rc;
    }
    return 0;
}

static int start(struct pol_preempt *p, struct sim *s, uint32_t job,
                 const struct sim_placement *pl)
{
    detach(p, job);
    int rc = sim_start(s, job, pl);
    if (rc)
        return rc;
    p->slots[job].node = pl->nseg == 1 ? pl->seg[0].node : -1;
    p->slots[job].pass = p->pass;
    p->busy += sim_job(s, job)->num_gpus;
    return insert(p, s, job);
}

/* Whether a GPU of a type job J may use is free. With none, every rule
 * of pol_place fails and changes nothing (`random` draws only when some
 * type fits), so it need not be asked. */
static int any_free(const struct sim *s, const struct sim_job *j)
{
    const struct cluster *c = sim_cluster(s);
    if (sim_share_cluster(s))
        return 1;
    for (int32_t t = 0; t < c->ntypes; t++)
        if ((j->allowed & (1u << t)) && sim_free_gpus(s, t) > 0)
            return 1;
    return 0;
}

/* Waiting job W takes the GPU of the worst running job of group G
 * (sim_swap); 0 or a negative SIM_E* code. The queues follow the swap as
 * preempt_victims and start file them. */
static int swap(struct pol_preempt *p, struct sim *s, int32_t g, uint32_t w)
{
    uint32_t v = rq_pop(&p->groups[g].q, p->where).job;
    int32_t node = p->slots[v].node;
    p->slots[v].heap = -1;
    int rc = sim_swap(s, v, w);
    if (rc || (rc = insert(p, s, v)) != 0)
        return rc;
    detach(p, w);
    p->slots[w].node = node;
    p->slots[w].pass = p->pass;
    return insert(p, s, w);
}

/* Rule 2 for a one-GPU waiting job W when no GPU of its types is free
 * (the caller checks): on each type, the worst running job is a victim if
 * W comes before it, and W takes the type whose victim is least urgent,
 * as choose_victims decides it. When that victim holds one GPU and the
 * placement rule would give its GPU to W (pol_placer_takes_lone_gpu), W
 * takes it over in one engine call (sim_swap), with the decisions and
 * results of preempt_victims, pol_place and start. Returns 0 started, 1
 * passed over, 2 another case (the general path decides), or a negative
 * SIM_E* code. */
static int swap_start(struct pol_preempt *p, struct sim *s,
                      const struct rq_item *w)
{
    const struct sim_job *wj = sim_job(s, w->job);
    const struct cluster *c = sim_cluster(s);
    double now = sim_now(s), k;
    int32_t best = -1;
    struct rq_item bi = {0, 0, 0};
    for (int32_t t = 0; t < c->ntypes; t++) {
        if (!(wj->allowed & (1u << t)) || c->types[t].gpus < 1)
            continue;
        int32_t g = worst_group(p, t, now, &k);
        const struct rq_item *top = g < 0 ? NULL : rq_top(&p->groups[g].q);
        if (!top || !pol_pre_before(w->key, w, k, top))
            continue;
        struct rq_item u = {k, top->rank, top->job};
        if (best < 0 || pol_pre_before(bi.key, &bi, u.key, &u)) {
            best = g;
            bi = u;
        }
    }
    if (best < 0)
        return 1;
    uint32_t v = bi.job;
    const struct sim_job *vj = sim_job(s, v);
    if (vj->num_gpus != 1 || vj->slice || p->slots[v].pass == p->pass ||
        !pol_placer_takes_lone_gpu(p->placer) ||
        sim_class(s, wj->job_class)->unit_s[vj->gpu_type] <= 0)
        return 2;
    return swap(p, s, best, w->job);
}

/* Starts waiting job W, preempting if it must (rules 1 and 2): 0 started,
 * 1 passed over, or a negative SIM_E* code. */
static int try_start(struct pol_preempt *p, struct sim *s,
                     const struct rq_item *w)
{
    struct sim_placement pl;
    const struct sim_job *wj = sim_job(s, w->job);
    int rc = 1;
    if (any_free(s, wj))
        rc = pol_place(p->placer, s, w->job, &pl);
    else if (wj->num_gpus == 1 && (rc = swap_start(p, s, w)) != 2)
        return rc;
    else
        rc = 1;
    if (rc != 1)
        return rc == 0 ? start(p, s, w->job, &pl) : rc;
    int32_t n;
    if (choose_victims(p, s, w, &n) == 0)
        return 1;
    rc = preempt_victims(p, s, n);
    if (rc == 0)
        rc = pol_place(p->placer, s, w->job, &pl);
    return rc == 0 ? start(p, s, w->job, &pl) : rc;
}

/* Asks for the next pass the policy or a rekey wants, unless one is due by
 * then already. */
static int ask_wake(struct pol_preempt *p, struct sim *s)
{
    double now = sim_now(s), t = p->repass ? p->repass(p->ctx, s) : INFINITY;
    while (p->rekeys.len > 0 && rekey_stale(p, &p->rekeys.a[0]))
        heap_pop(&p->rekeys);
    if (p->rekeys.len > 0 && p->rekeys.a[0].key < t)
        t = p->rekeys.a[0].key;
    if (!(t > now && t < INFINITY) ||
        (p->wake_pending > now && p->wake_pending <= t))
        return 0;
    p->wake_pending = t;
    return sim_wake_at(s, t);
}

int pol_preempt_schedule(struct pol_preempt *p, struct sim *s)
{
    if (p->oom)
        return SIM_ENOMEM; /* an arrival could not be recorded */
    if (p->bad_order)
        return SIM_EINVAL; /* arrivals out of (submit time, id) order */
    p->pass++;
    double now = sim_now(s), k;
    int rc = 0;
    while (rc == 0 && p->rekeys.len > 0 && p->rekeys.a[0].key <= now) {
        struct rq_item r = heap_pop(&p->rekeys); /* `until` has come */
        if (!rekey_stale(p, &r)) {
            detach(p, r.job);
            rc = insert(p, s, r.job);
        }
    }
    while (rc == 0 && p->waiting.len > 0) {
        if ((rc = pol_pre_swaps(p, s)) != 0 || p->waiting.len == 0)
            break;
        struct rq_item w = *rq_top(&p->waiting);
        int32_t g = worst_group(p, -1, now, &k);
        if ((g < 0 || !pol_pre_before(w.key, &w, k, rq_top(&p->groups[g].q))) &&
            p->busy == sim_cluster(s)->total_gpus && !sim_share_cluster(s))
            break;
        rc = try_start(p, s, &w);
        if (rc == 1)
            rc = heap_push(&p->skipped, detach(p, w.job));
    }
    while (p->skipped.len > 0) { /* back to the queue */
        struct rq_item e = p->skipped.a[--p->skipped.len];
        p->slots[e.job].heap = 0;
        if (rq_push(&p->waiting, p->where, e))
            return SIM_ENOMEM;
    }
    return rc ? rc : ask_wake(p, s);
}

int pol_preempt_create(const struct pol_config *cfg, pol_prio_fn prio,
                       pol_repass_fn repass, void *ctx,
                       struct pol_preempt **out)
{
    const struct cluster *c = cfg->cluster;
    size_t gpus = (size_t)c->total_gpus + 1, nodes = (size_t)c->nnodes + 1;
    struct pol_preempt *p =
        calloc(1, sizeof *p + gpus * sizeof(struct scratch) +
                      2 * gpus * sizeof(struct rq_item) +
                      nodes * sizeof(struct node_room));
    if (!p)
        return SIM_ENOMEM;
    *p = (struct pol_preempt){.prio = prio, .repass = repass, .ctx = ctx,
                              .wake_pending = -1};
    rq_init(&p->waiting, 1, 0);
    p->v = (struct scratch *)(p + 1);
    p->vs = (struct rq_item *)(p->v + gpus);
    p->ss = p->vs + gpus;
    p->node = (struct node_room *)(p->ss + gpus);
    p->placer = pol_placer_for(cfg);
    if (!p->placer) {
        free(p);
        return SIM_ENOMEM;
    }
    *out = p;
    return 0;
}

void pol_preempt_destroy(struct pol_preempt *p)
{
    if (!p)
        return;
    pol_placer_destroy(p->placer);
    for (int32_t g = 0; g < p->ngroups; g++)
        rq_free(&p->groups[g].q);
    free(p->groups);
    rq_free(&p->waiting);
    free(p->rekeys.a);
    free(p->skipped.a);
    free(p->slots);
    free(p);
}

void pol_preempt_arrival(struct pol_preempt *p, struct sim *s, uint32_t job)
{
    if (!p->slots) {
        size_t n = sim_njobs(s), bytes = n * sizeof *p->slots;
        p->slots = malloc(bytes + n * (sizeof *p->where + sizeof *p->rank + 1));
        if (!p->slots) {
            p->oom = 1;
            return;
        }
        memset(p->slots, 0xff, bytes); /* heap, node: -1 */
        p->where = (struct rq_where *)(p->slots + n);
        memset(p->where, 0, n * sizeof *p->where); /* in no queue */
        p->rank = (uint32_t *)(p->where + n);
        memset(p->rank, 0xff, n * sizeof *p->rank); /* none yet */
        p->one_gpu = (uint8_t *)(p->rank + n);
        p->prefetch =
            n * (sizeof(struct sim_job) + sizeof *p->slots) > PRE_CACHED;
    }
    const struct sim_job *j = sim_job(s, job);
    /* The engine hands jobs over in (submit time, id) order (sim_run's
     * arrival order): the rank stands for both in the order of jobs. A job
     * back after running out of memory arrives again: it keeps its rank. */
    if (p->rank[job] == UINT32_MAX) {
        if (p->arrived > 0 &&
            !(j->submit_time > p->last_submit ||
              (j->submit_time == p->last_submit && job > p->last_job)))
            p->bad_order = 1;
        p->rank[job] = p->arrived++;
        p->last_submit = j->submit_time;
        p->last_job = job;
    }
    int on_type0 =
        (j->allowed & 1u) && sim_class(s, j->job_class)->unit_s[0] > 0;
    p->one_gpu[job] = (uint8_t)((j->num_gpus == 1 ? PRE_ONE_GPU : 0) |
                                (on_type0 ? PRE_ON_TYPE0 : 0));
    if (insert(p, s, job) != 0)
        p->oom = 1;
}

void pol_preempt_finish(struct pol_preempt *p, struct sim *s, uint32_t job)
{
    if (p->slots && p->slots[job].heap > 0) {
        detach(p, job);
        p->busy -= sim_job(s, job)->num_gpus;
    }
}
