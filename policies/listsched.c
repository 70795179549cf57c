/* listsched.c -- the non-preemptive list scheduler behind fifo, sjf, edf
 * and friends: waiting jobs in a min-heap on (key, arrival number); the
 * head starts when a placement has room, and blocks the rest when none has.
 * --backfill lets later jobs start around a blocked head (backfill.c). */
#include <stdlib.h>

#include "policy.h"

struct entry {
    double key;
    uint64_t seq; /* arrival number: equal keys keep arrival order */
    uint32_t job;
};

struct pol_list {
    pol_key_fn key;
    enum pol_backfill backfill;
    struct pol_placer *placer;
    struct entry *heap; /* (cap) */
    size_t len, cap;
    uint64_t next_seq;
};

static int before(const struct entry *a, const struct entry *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    return a->seq < b->seq;
}

static void sift_up(struct entry *h, size_t i)
{
    struct entry e = h[i];
    while (i > 0 && before(&e, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static void sift_down(struct entry *h, size_t n, size_t i)
{
    struct entry e = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&h[c + 1], &h[c]))
            c++;
        if (!before(&h[c], &e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

int pol_list_create(const struct pol_config *cfg, pol_key_fn key,
                    struct pol_list **out)
{
    struct pol_list *l = calloc(1, sizeof *l);
    if (!l)
        return SIM_ENOMEM;
    l->key = key;
    l->backfill = cfg->backfill;
    l->placer = pol_placer_create(cfg->cluster, cfg->placement, cfg->seed);
    if (!l->placer) {
        free(l);
        return SIM_ENOMEM;
    }
    *out = l;
    return 0;
}

void pol_list_destroy(struct pol_list *l)
{
    if (!l)
        return;
    pol_placer_destroy(l->placer);
    free(l->heap);
    free(l);
}

void pol_list_arrival(struct pol_list *l, struct sim *s, uint32_t job)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct entry *h = realloc(l->heap, cap * sizeof *h);
        if (!h)
            return; /* the job stays unknown to us: schedule() reports it */
        l->heap = h;
        l->cap = cap;
    }
    l->heap[l->len] = (struct entry){l->key(s, job), l->next_seq++, job};
    sift_up(l->heap, l->len++);
}

int pol_list_schedule(struct pol_list *l, struct sim *s)
{
    if (l->len < sim_queue_len(s))
        return SIM_ENOMEM; /* an arrival could not be recorded */
    struct sim_placement p;
    while (l->len > 0) {
        uint32_t j = l->heap[0].job;
        int rc = pol_place(l->placer, s, j, &p);
        if (rc == 1)
            break;
        if (rc == 0)
            rc = sim_start(s, j, &p);
        if (rc)
            return rc;
        l->heap[0] = l->heap[--l->len];
        if (l->len > 0)
            sift_down(l->heap, l->len, 0);
    }
    return 0;
}
