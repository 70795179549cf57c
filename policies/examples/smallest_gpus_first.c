/* smallest_gpus_first.c -- an example hetsim policy plugin: the waiting job
 * that asks for the fewest GPUs starts first, ties by arrival;
 * non-preemptive.
 *
 * It shows each part of the plugin ABI (<hetsim/policy_abi.h>):
 *   - the one exported function, hetsim_policy_plugin(), returning a table
 *     whose first member is HETSIM_POLICY_ABI_VERSION;
 *   - state made in create() and freed in destroy();
 *   - a parameter read from --policy-opt (max_gpus);
 *   - on_arrival() to learn of each job, schedule() to decide, and the api
 *     table to read jobs and to place and start them.
 *
 * The rule. Waiting jobs are kept in a min-heap on (num_gpus, arrival
 * number). At each scheduling point the top of the heap starts on the GPUs
 * the user's --placement picks, then the next, until one fits nowhere: it
 * then blocks the rest, as hetsim's built-in list policies do without
 * --backfill (so a big job is not overtaken for ever by smaller ones that
 * happen to fit). With --policy-opt max_gpus=N, jobs asking for more than
 * N GPUs all count as N + 1: they still come after every smaller job, but
 * among themselves in arrival order rather than by size.
 *
 * Build (hetsim's CMake does it: build/policies/examples/
 * libsmallest_gpus_first.so):
 *   cc -std=c11 -O2 -shared -fPIC -I<prefix>/include smallest_gpus_first.c \
 *      -o libsmallest_gpus_first.so
 * Run:
 *   hetsim run --policy ./libsmallest_gpus_first.so --trace T --cluster C
 *              [--policy-opt max_gpus=8] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hetsim/policy_abi.h>

struct entry {
    int64_t gpus;  /* the key: fewest first (capped at max_gpus + 1) */
    uint64_t seq;  /* arrival number: ties in arrival order */
    uint32_t job;
};

struct state {
    struct entry *heap; /* (cap) */
    size_t len, cap;
    uint64_t next_seq;
    int64_t max_gpus;   /* 0 = no limit */
    int oom;            /* an arrival could not be recorded */
};

static int before(const struct entry *a, const struct entry *b)
{
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus;
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

/* --policy-opt max_gpus=N: N >= 0, whole. */
static int read_options(const struct hetsim_policy_config *cfg,
                        struct state *st)
{
    for (size_t i = 0; i < cfg->nopts; i++) {
        if (strcmp(cfg->keys[i], "max_gpus") != 0)
            continue; /* hetsim has checked keys against params */
        char *end;
        long long v = strtoll(cfg->values[i], &end, 10);
        if (end == cfg->values[i] || *end || v < 0) {
            snprintf(cfg->error, cfg->error_cap,
                     "smallest_gpus_first: max_gpus wants a whole number "
                     ">= 0, got '%s'", cfg->values[i]);
            return HETSIM_EINVAL;
        }
        st->max_gpus = v;
    }
    return HETSIM_OK;
}

static int sgf_create(const struct hetsim_policy_config *cfg, void **ctx)
{
    if (strcmp(cfg->backfill, "none") != 0) {
        snprintf(cfg->error, cfg->error_cap, "smallest_gpus_first does no "
                 "backfilling (--backfill %s)", cfg->backfill);
        return HETSIM_EINVAL;
    }
    struct state *st = calloc(1, sizeof *st);
    if (!st)
        return HETSIM_ENOMEM;
    int rc = read_options(cfg, st);
    if (rc != HETSIM_OK) {
        free(st);
        return rc;
    }
    *ctx = st;
    return HETSIM_OK;
}

static void sgf_destroy(void *ctx)
{
    struct state *st = ctx;
    if (!st)
        return;
    free(st->heap);
    free(st);
}

static void sgf_arrival(void *ctx, const struct hetsim_policy_api *api,
                        struct hetsim_sim *s, uint32_t job)
{
    struct state *st = ctx;
    if (st->len == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 256;
        struct entry *h = realloc(st->heap, cap * sizeof *h);
        if (!h) {
            st->oom = 1; /* reported by the next schedule() */
            return;
        }
        st->heap = h;
        st->cap = cap;
    }
    int64_t gpus = api->job_num_gpus(s, job);
    if (st->max_gpus > 0 && gpus > st->max_gpus)
        gpus = st->max_gpus + 1; /* big jobs: one class, in arrival order */
    st->heap[st->len] = (struct entry){gpus, st->next_seq++, job};
    sift_up(st->heap, st->len++);
}

static int sgf_schedule(void *ctx, const struct hetsim_policy_api *api,
                        struct hetsim_sim *s)
{
    struct state *st = ctx;
    if (st->oom)
        return HETSIM_ENOMEM;
    while (st->len > 0) {
        uint32_t job = st->heap[0].job;
        struct hetsim_placement p;
        int rc = api->place(s, job, &p);
        if (rc == HETSIM_NO_ROOM)
            break; /* the top blocks the rest */
        if (rc == HETSIM_OK)
            rc = api->start(s, job, &p);
        if (rc != HETSIM_OK)
            return rc;
        st->heap[0] = st->heap[--st->len];
        if (st->len > 0)
            sift_down(st->heap, st->len, 0);
    }
    return HETSIM_OK;
}

static const struct hetsim_policy_param sgf_params[] = {
    {"max_gpus", "0", "jobs asking for more GPUs go last, in arrival "
                      "order (0 = no limit)"},
    {NULL, NULL, NULL},
};

static const struct hetsim_policy_plugin sgf_plugin = {
    .abi_version = HETSIM_POLICY_ABI_VERSION,
    .name = "smallest_gpus_first",
    .description = "fewest GPUs first, ties by arrival; non-preemptive "
                   "(a plugin)",
    .params = sgf_params,
    .create = sgf_create,
    .destroy = sgf_destroy,
    .on_arrival = sgf_arrival,
    .schedule = sgf_schedule,
};

const struct hetsim_policy_plugin *hetsim_policy_plugin(void)
{
    return &sgf_plugin;
}
