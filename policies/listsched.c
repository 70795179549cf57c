/* listsched.c -- the non-preemptive list scheduler behind fifo, sjf, edf
 * and friends: waiting jobs in a min-heap on (key, arrival number); the
 * head starts when a placement has room, and blocks the rest when none has.
 * --backfill lets later jobs start around a blocked head (backfill.c). */
#include <stdlib.h>
#include <string.h>

#include "listsched_internal.h"

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
    /* Backfilling only: */
    struct pol_bf *bf; /* NULL without --backfill */
    size_t *pos;       /* (pos_cap) heap index of each waiting job */
    size_t *front;     /* (walk_cap) heap indices a pass may visit next */
    uint32_t *started; /* (walk_cap) jobs a pass started */
    size_t pos_cap, walk_cap;
};

static int before(const struct entry *a, const struct entry *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    return a->seq < b->seq;
}

static void put(struct pol_list *l, size_t i, struct entry e)
{
    l->heap[i] = e;
    if (l->pos)
        l->pos[e.job] = i;
}

static void sift_up(struct pol_list *l, size_t i)
{
    struct entry e = l->heap[i];
    while (i > 0 && before(&e, &l->heap[(i - 1) / 2])) {
        put(l, i, l->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    put(l, i, e);
}

static void sift_down(struct pol_list *l, size_t i)
{
    struct entry e = l->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= l->len)
            break;
        if (c + 1 < l->len && before(&l->heap[c + 1], &l->heap[c]))
            c++;
        if (!before(&l->heap[c], &e))
            break;
        put(l, i, l->heap[c]);
        i = c;
    }
    put(l, i, e);
}

/* Removes the entry at heap index I. */
static void remove_at(struct pol_list *l, size_t i)
{
    struct entry last = l->heap[--l->len];
    if (i == l->len)
        return;
    put(l, i, last);
    if (i > 0 && before(&last, &l->heap[(i - 1) / 2]))
        sift_up(l, i);
    else
        sift_down(l, i);
}

int pol_list_create(const struct pol_config *cfg, pol_key_fn key,
                    struct pol_list **out)
{
    struct pol_list *l = calloc(1, sizeof *l);
    if (!l)
        return SIM_ENOMEM;
    l->key = key;
    l->backfill = cfg->backfill;
    l->placer = pol_placer_for(cfg);
    int reserve = l->backfill == POL_BACKFILL_EASY ||
                  l->backfill == POL_BACKFILL_CONSERVATIVE;
    if (reserve)
        l->bf = pol_bf_create(cfg->cluster, l->backfill);
    if (!l->placer || (reserve && !l->bf)) {
        pol_list_destroy(l);
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
    pol_bf_destroy(l->bf);
    free(l->heap);
    free(l->pos);
    free(l->front);
    free(l->started);
    free(l);
}

/* Room for one more entry, and for JOB's position when backfilling. */
static int grow(struct pol_list *l, uint32_t job)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct entry *h = realloc(l->heap, cap * sizeof *h);
        if (!h)
            return SIM_ENOMEM;
        l->heap = h;
        l->cap = cap;
    }
    if ((l->bf || l->backfill == POL_BACKFILL_GREEDY) && job >= l->pos_cap) {
        size_t cap = l->pos_cap ? 2 * l->pos_cap : 1024;
        while (cap <= job)
            cap *= 2;
        size_t *pos = realloc(l->pos, cap * sizeof *pos);
        if (!pos)
            return SIM_ENOMEM;
        l->pos = pos;
        l->pos_cap = cap;
    }
    return 0;
}

void pol_list_push(struct pol_list *l, uint32_t job, double key)
{
    if (grow(l, job) != 0)
        return; /* the job stays unknown to us: schedule() reports it */
    l->heap[l->len] = (struct entry){key, l->next_seq++, job};
    sift_up(l, l->len++);
}

void pol_list_arrival(struct pol_list *l, struct sim *s, uint32_t job)
{
    pol_list_push(l, job, l->key(s, job));
}

/* Starts jobs from the head while they can be placed: 0 when the list is
 * empty, 1 when the head is blocked, or a negative SIM_E* code. */
static int start_heads(struct pol_list *l, struct sim *s)
{
    struct sim_placement p;
    while (l->len > 0) {
        uint32_t j = l->heap[0].job;
        int rc = pol_place(l->placer, s, j, &p);
        if (rc == 0)
            rc = sim_start(s, j, &p);
        if (rc)
            return rc;
        if (l->bf)
            pol_bf_started(l->bf, s, j);
        remove_at(l, 0);
    }
    return 0;
}

static int walk_room(struct pol_list *l)
{
    if (l->walk_cap >= l->len)
        return 0;
    size_t *front = realloc(l->front, l->cap * sizeof *front);
    if (!front)
        return SIM_ENOMEM;
    l->front = front;
    uint32_t *started = realloc(l->started, l->cap * sizeof *started);
    if (!started)
        return SIM_ENOMEM;
    l->started = started;
    l->walk_cap = l->cap;
    return 0;
}

static void front_push(const struct pol_list *l, size_t *front, size_t *n,
                       size_t x);
static size_t front_pop(const struct pol_list *l, size_t *front, size_t *n);

/* --backfill greedy: every job behind the blocked head that fits now
 * starts, in key order, with no reservation. */
static int greedy(struct pol_list *l, struct sim *s)
{
    struct sim_placement p;
    size_t n = 0, nstarted = 0;
    int rc = walk_room(l);
    if (rc)
        return rc;
    front_push(l, l->front, &n, 0);
    front_pop(l, l->front, &n); /* the head, which did not fit */
    while (n > 0) {
        uint32_t job = l->heap[front_pop(l, l->front, &n)].job;
        rc = pol_place(l->placer, s, job, &p);
        if (rc == 0)
            rc = sim_start(s, job, &p);
        if (rc < 0)
            return rc;
        if (rc == 0)
            l->started[nstarted++] = job;
    }
    for (size_t i = 0; i < nstarted; i++)
        remove_at(l, l->pos[l->started[i]]);
    return 0;
}

/* FRONT holds the heap indices a backfill pass may visit next, itself a
 * min-heap of N on the entries they point to. Popping the least and pushing
 * its two children yields the waiting jobs in key order, the first K in
 * O(K log K), without changing the heap. */
static void front_push(const struct pol_list *l, size_t *front, size_t *n,
                       size_t x)
{
    size_t i = (*n)++;
    while (i > 0 && before(&l->heap[x], &l->heap[front[(i - 1) / 2]])) {
        front[i] = front[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    front[i] = x;
}

static size_t front_pop(const struct pol_list *l, size_t *front, size_t *n)
{
    size_t top = front[0], x = front[--*n], i = 0, c;
    while ((c = 2 * i + 1) < *n) {
        if (c + 1 < *n && before(&l->heap[front[c + 1]], &l->heap[front[c]]))
            c++;
        if (!before(&l->heap[front[c]], &l->heap[x]))
            break;
        front[i] = front[c];
        i = c;
    }
    if (*n > 0)
        front[i] = x;
    for (c = 2 * top + 1; c <= 2 * top + 2 && c < l->len; c++)
        front_push(l, front, n, c);
    return top;
}

/* Offers the jobs behind the blocked head to backfill.c in key order, then
 * drops those it started from the heap. */
static int backfill(struct pol_list *l, struct sim *s)
{
    int rc = pol_bf_begin(l->bf, s, l->heap[0].job);
    if (rc <= 0)
        return rc;
    if ((rc = walk_room(l)) != 0)
        return rc;
    size_t n = 0, nstarted = 0;
    front_push(l, l->front, &n, 0);
    front_pop(l, l->front, &n); /* the head, reserved by pol_bf_begin */
    while (n > 0 && pol_bf_more(l->bf, s)) {
        uint32_t job = l->heap[front_pop(l, l->front, &n)].job;
        rc = pol_bf_offer(l->bf, l->placer, s, job);
        if (rc < 0)
            return rc;
        if (rc == 1)
            l->started[nstarted++] = job;
    }
    for (size_t i = 0; i < nstarted; i++)
        remove_at(l, l->pos[l->started[i]]);
    return 0;
}

int pol_list_schedule(struct pol_list *l, struct sim *s)
{
    if (l->len < sim_queue_len(s))
        return SIM_ENOMEM; /* an arrival could not be recorded */
    int rc = start_heads(l, s);
    if (rc == 1 && l->backfill == POL_BACKFILL_GREEDY && l->len > 1)
        return greedy(l, s);
    if (rc == 1 && l->bf && l->len > 1)
        return backfill(l, s);
    return rc < 0 ? rc : 0;
}
