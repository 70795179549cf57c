/* test_place.c -- the placement rules (pol_place), against placements
 * worked out by hand on small heterogeneous clusters with partly used
 * nodes: one node and spread, class and GPU-type restrictions, and the
 * seeded random rule's determinism and reach.
 *
 * A placer reads a running engine, so each scene is a real run: a harness
 * policy starts "filler" jobs on chosen nodes at time 0, then asks every
 * rule where each "probe" job would go, writes each answer as text
 * ("V100 2:5 0:1" = V100 GPUs, 5 on node 2 and 1 on node 0; "none" = it
 * fits nowhere now), and lets the run finish. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "policy.h"

#define MAX_PROBES 8
#define TEXT_CAP 128

struct fill {
    int32_t node, gpus; /* a job holding GPUS of NODE from time 0 */
};

struct probe {
    int32_t gpus;
    uint32_t allowed; /* 0 = any type */
    int32_t job_class;
};

struct scene {
    const char *cluster_json;
    const struct fill *fills;
    int nfills;
    const struct probe *probes;
    int nprobes;
    /* Extra checks at the state the probes see; may be NULL. */
    void (*inspect)(struct scene *sc, struct sim *s);
    void *ctx;
    char got[MAX_PROBES][POL_PLACE_COUNT][TEXT_CAP];
    struct pol_placer *greedy;
    int calls;
};

/* "TYPE node:gpus node:gpus ..." */
static void describe(const struct cluster *c, const struct sim_placement *p,
                     char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s", c->types[p->gpu_type].name);
    for (int32_t i = 0; i < p->nseg && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, " %d:%d",
                                p->seg[i].node, p->seg[i].gpus);
}

/* P gives JOB exactly its GPUs, free now, on distinct nodes of one type it
 * may use, on one node or spread as its class allows. */
static void assert_legal(const struct sim *s, uint32_t job,
                         const struct sim_placement *p)
{
    const struct cluster *c = sim_cluster(s);
    const struct sim_job *j = sim_job(s, job);
    const struct sim_class_spec *cl = sim_class(s, j->job_class);
    int32_t t = p->gpu_type, total = 0;
    cr_assert(t >= 0 && t < c->ntypes && (j->allowed & (1u << t)));
    cr_assert_gt((p->nseg > 1 ? cl->spread_unit_s : cl->unit_s)[t], 0);
    for (int32_t i = 0; i < p->nseg; i++) {
        int32_t n = p->seg[i].node;
        cr_assert_eq(c->nodes[n].gpu_type, t);
        cr_assert(p->seg[i].gpus >= 1 &&
                  p->seg[i].gpus <= sim_node_free(s, n));
        for (int32_t k = 0; k < i; k++)
            cr_assert_neq(p->seg[k].node, n);
        total += p->seg[i].gpus;
    }
    cr_assert_eq(total, j->num_gpus);
    if (p->nseg > 1) /* spread only when no node of the type has room */
        cr_assert_lt(sim_find_node(s, t, j->num_gpus), 0);
}

/* Where PL puts JOB now, as text. */
static void place_text(struct pol_placer *pl, const struct sim *s,
                       uint32_t job, char *buf)
{
    struct sim_placement p;
    int rc = pol_place(pl, s, job, &p);
    cr_assert(rc == 0 || rc == 1, "pol_place returned %d", rc);
    if (rc == 1) {
        snprintf(buf, TEXT_CAP, "none");
        return;
    }
    assert_legal(s, job, &p);
    describe(sim_cluster(s), &p, buf, TEXT_CAP);
}

static void record(struct scene *sc, struct sim *s)
{
    const struct cluster *c = sim_cluster(s);
    for (int i = 0; i < sc->nfills; i++) {
        struct sim_seg seg = {sc->fills[i].node, sc->fills[i].gpus};
        struct sim_placement p = {c->nodes[seg.node].gpu_type, 1, &seg, NULL};
        cr_assert_eq(sim_start(s, (uint32_t)i, &p), 0, "filler %d", i);
    }
    for (int k = 0; k < POL_PLACE_COUNT; k++) {
        struct pol_placer *pl =
            pol_placer_create(c, (enum pol_placement)k, 1);
        cr_assert_not_null(pl);
        for (int i = 0; i < sc->nprobes; i++)
            place_text(pl, s, (uint32_t)(sc->nfills + i), sc->got[i][k]);
        pol_placer_destroy(pl);
    }
    if (sc->inspect)
        sc->inspect(sc, s);
}

static int scene_schedule(void *state, struct sim *s)
{
    struct scene *sc = state;
    if (sc->calls++ == 0)
        record(sc, s);
    struct sim_placement p;
    for (int32_t j = sim_queue_head(s); j >= 0;) { /* then run them all */
        int32_t next = sim_queue_next(s, (uint32_t)j);
        if (pol_place(sc->greedy, s, (uint32_t)j, &p) == 0)
            cr_assert_eq(sim_start(s, (uint32_t)j, &p), 0);
        j = next;
    }
    return 0;
}

/* Runs scene SC; CLASSES (NCLASSES, may be 0) become job classes 1, 2... */
static void play(struct scene *sc, const struct sim_class_spec *classes,
                 int nclasses)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(sc->cluster_json, "scene", &c, &err), 0,
                 "%s", err.text);
    struct sim *s = sim_create(c, 1);
    cr_assert_not_null(s);
    for (int i = 0; i < nclasses; i++) {
        int32_t id;
        cr_assert_eq(sim_add_class(s, &classes[i], &id), 0);
    }
    for (int i = 0; i < sc->nfills; i++) {
        struct sim_job_spec spec = {0, 1000, sc->fills[i].gpus, 0,
                                    (uint32_t)i, 0, 0, 0, 0};
        cr_assert_eq(sim_add_job(s, &spec), 0);
    }
    for (int i = 0; i < sc->nprobes; i++) {
        const struct probe *p = &sc->probes[i];
        struct sim_job_spec spec = {0, 1, p->gpus, p->allowed,
                                    (uint32_t)(sc->nfills + i), p->job_class,
                                    0, 0, 0};
        cr_assert_eq(sim_add_job(s, &spec), 0);
    }
    sc->greedy = pol_placer_create(c, POL_PLACE_FASTEST, 1);
    struct sim_policy hooks = {.name = "scene", .state = sc,
                               .schedule = scene_schedule};
    int rc = sim_run(s, &hooks, NULL, &err);
    cr_assert_eq(rc, 0, "%s", err.text);
    cr_assert_eq(sc->calls > 0, 1);
    pol_placer_destroy(sc->greedy);
    sim_destroy(s);
    cluster_destroy(c);
}

static void expect(const struct scene *sc, int probe, const char *fastest,
                   const char *consolidate, const char *first_fit,
                   const char *best_fit)
{
    const char *want[] = {fastest, consolidate, first_fit, best_fit};
    for (int k = 0; k < 4; k++)
        cr_expect_str_eq(sc->got[probe][k], want[k], "probe %d, %s", probe,
                         pol_placement_name((enum pol_placement)k));
}

/* Scene A. Types listed K80, P100, V100 (cluster order), speeds 0.25, 0.5,
 * 1 (speed order V100, P100, K80); a spread runs 1.5 times longer, so class
 * 0's seconds per unit are V100 1, V100 spread 1.5, P100 2, P100 spread 3,
 * K80 4, K80 spread 6. Nodes, and the GPUs left free by the fillers:
 *   0 V100 x4: 3 free   1 K80 x4: 4   2 V100 x8: 5   3 P100 x2: 2
 *   4 V100 x4: 2        5 K80 x8: 2   6 P100 x4: 1   7 K80 x4: 3
 * Free per type: V100 10, K80 9, P100 3. */
static const char *const scene_a_cluster =
    "{\"name\": \"a\", \"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
    " \"gpu_types\": [{\"name\": \"K80\", \"memory_mb\": 12288, \"speed\": 0.25},"
    "  {\"name\": \"P100\", \"memory_mb\": 16384, \"speed\": 0.5},"
    "  {\"name\": \"V100\", \"memory_mb\": 16384, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 4},"
    "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 4},"
    "  {\"gpu_type\": \"V100\", \"gpus_per_node\": 8},"
    "  {\"gpu_type\": \"P100\", \"gpus_per_node\": 2},"
    "  {\"gpu_type\": \"V100\", \"gpus_per_node\": 4},"
    "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 8},"
    "  {\"gpu_type\": \"P100\", \"gpus_per_node\": 4},"
    "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 4}]}";

static const struct fill scene_a_fills[] = {
    {0, 1}, {2, 3}, {4, 2}, {5, 6}, {6, 3}, {7, 1},
};

#define K80 (1u << 0)
#define P100 (1u << 1)
#define V100 (1u << 2)

static void scene_a(struct scene *sc, const struct probe *probes, int n,
                    void (*inspect)(struct scene *, struct sim *), void *ctx)
{
    memset(sc, 0, sizeof *sc);
    sc->cluster_json = scene_a_cluster;
    sc->fills = scene_a_fills;
    sc->nfills = 6;
    sc->probes = probes;
    sc->nprobes = n;
    sc->inspect = inspect;
    sc->ctx = ctx;
    play(sc, NULL, 0);
}

Test(place, each_rule_picks_the_node_worked_out_by_hand)
{
    static const struct probe probes[] = {
        {2, 0, 0}, {3, 0, 0}, {4, 0, 0}, {1, P100 | K80, 0},
        {6, 0, 0}, {9, 0, 0}, {12, V100, 0}, {5, K80, 0},
    };
    static struct scene sc;
    scene_a(&sc, probes, 8, NULL, NULL);
    /* 2 GPUs: consolidate and best-fit fill V100 node 4 exactly (a K80
     * and a P100 node would too, but V100 is faster); first-fit takes the
     * first type listed. */
    expect(&sc, 0, "V100 0:2", "V100 4:2", "K80 1:2", "V100 4:2");
    /* 3 GPUs: V100 node 0 fits exactly; K80 node 7 too, but slower. */
    expect(&sc, 1, "V100 0:3", "V100 0:3", "K80 1:3", "V100 0:3");
    /* 4 GPUs: V100 node 2 keeps 1 free, K80 node 1 none: best-fit there. */
    expect(&sc, 2, "V100 2:4", "V100 2:4", "K80 1:4", "K80 1:4");
    /* 1 GPU, P100 or K80 only: P100 is faster; node 6 has 1 free. */
    expect(&sc, 3, "P100 3:1", "P100 6:1", "K80 1:1", "P100 6:1");
    /* 6 GPUs fit on no node: spreads. consolidate: V100 (5 + 3) and K80
     * (4 + 3) both need 2 nodes, V100 is faster, most free first.
     * best-fit: K80 is left with 3 free, V100 with 4; fewest free first. */
    expect(&sc, 4, "V100 0:3 2:3", "V100 2:5 0:1", "K80 1:4 5:2",
           "K80 5:2 7:3 1:1");
    /* 9 GPUs: 3 nodes of either type; best-fit empties K80. */
    expect(&sc, 5, "V100 0:3 2:5 4:1", "V100 2:5 0:3 4:1", "K80 1:4 5:2 7:3",
           "K80 5:2 7:3 1:4");
    /* 12 GPUs of V100 only: 10 are free. */
    expect(&sc, 6, "none", "none", "none", "none");
    /* 5 GPUs of K80 only: no K80 node has 5 free. */
    expect(&sc, 7, "K80 1:4 5:1", "K80 1:4 7:1", "K80 1:4 5:1",
           "K80 5:2 7:3");
}

/* Scene B. Types V100 (speed 1) and K80 (0.25), in that order; nodes 0-3
 * V100 x4 with 2 free each, node 4 K80 x8 with 5 free, node 5 K80 x8 with
 * 6 free. Class 1 cannot spread on V100; class 2 cannot run on one V100
 * node, only spread over V100 nodes. */
static const char *const scene_b_cluster =
    "{\"name\": \"b\", \"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
    " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 16384, \"speed\": 1},"
    "  {\"name\": \"K80\", \"memory_mb\": 12288, \"speed\": 0.25}],"
    " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 4, \"count\": 4},"
    "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 8, \"count\": 2}]}";

static const struct fill scene_b_fills[] = {
    {0, 2}, {1, 2}, {2, 2}, {3, 2}, {4, 3}, {5, 2},
};

static const struct sim_class_spec scene_b_classes[] = {
    {.unit_s = {1, 4}, .spread_unit_s = {0, 6}},
    {.unit_s = {0, 4}, .spread_unit_s = {1.5, 6}},
};

static void scene_b(struct scene *sc, const struct probe *probes, int n,
                    void (*inspect)(struct scene *, struct sim *), void *ctx)
{
    memset(sc, 0, sizeof *sc);
    sc->cluster_json = scene_b_cluster;
    sc->fills = scene_b_fills;
    sc->nfills = 6;
    sc->probes = probes;
    sc->nprobes = n;
    sc->inspect = inspect;
    sc->ctx = ctx;
    play(sc, scene_b_classes, 2);
}

Test(place, spreads_and_class_restrictions_follow_the_rules)
{
    static const struct probe probes[] = {
        {8, 0, 0}, {8, 0, 1}, {2, 0, 2}, {3, 0, 2}, {6, 0, 0}, {6, 0, 1},
    };
    static struct scene sc;
    scene_b(&sc, probes, 6, NULL, NULL);
    /* 8 GPUs: 4 V100 nodes or 2 K80 nodes; consolidate takes fewer nodes
     * over speed; best-fit leaves V100 with 0 free. */
    expect(&sc, 0, "V100 0:2 1:2 2:2 3:2", "K80 5:6 4:2",
           "V100 0:2 1:2 2:2 3:2", "V100 0:2 1:2 2:2 3:2");
    /* The same job in class 1, which cannot spread on V100: K80 only. */
    expect(&sc, 1, "K80 4:5 5:3", "K80 5:6 4:2", "K80 4:5 5:3",
           "K80 4:5 5:3");
    /* Class 2, 2 GPUs: no single V100 node for it, and no V100 spread
     * while a V100 node has room: K80 node 4 (5 free, the tighter). */
    expect(&sc, 2, "K80 4:2", "K80 4:2", "K80 4:2", "K80 4:2");
    /* Class 2, 3 GPUs: no V100 node has 3, so it may spread there; only
     * fastest does, the others take one K80 node first. */
    expect(&sc, 3, "V100 0:2 1:1", "K80 4:3", "K80 4:3", "K80 4:3");
    /* 6 GPUs: one K80 node (5) beats spreading, except for fastest. */
    expect(&sc, 4, "V100 0:2 1:2 2:2", "K80 5:6", "K80 5:6", "K80 5:6");
    expect(&sc, 5, "K80 5:6", "K80 5:6", "K80 5:6", "K80 5:6");
}

/* ---- random ---------------------------------------------------------- */

#define DRAWS 9000

struct tally {
    uint64_t seed;
    int draws;
    char names[64][TEXT_CAP]; /* distinct placements seen */
    int counts[64];
    int n;
    char first[200][TEXT_CAP]; /* the first 200 draws, in order */
};

static void tally_add(struct tally *t, const char *text)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->names[i], text) == 0) {
            t->counts[i]++;
            return;
        }
    cr_assert_lt(t->n, 64);
    snprintf(t->names[t->n], TEXT_CAP, "%s", text);
    t->counts[t->n++] = 1;
}

static int tally_count(const struct tally *t, const char *text)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->names[i], text) == 0)
            return t->counts[i];
    return 0;
}

/* Draws sc->ctx's number of random placements of the first probe. */
static void draw_many(struct scene *sc, struct sim *s)
{
    struct tally *t = sc->ctx;
    struct pol_placer *pl =
        pol_placer_create(sim_cluster(s), POL_PLACE_RANDOM, t->seed);
    cr_assert_not_null(pl);
    char text[TEXT_CAP];
    for (int i = 0; i < t->draws; i++) {
        place_text(pl, s, (uint32_t)sc->nfills, text);
        if (i < 200)
            snprintf(t->first[i], TEXT_CAP, "%s", text);
        tally_add(t, text);
    }
    pol_placer_destroy(pl);
}

static void random_tally(uint64_t seed, int draws, const struct probe *p,
                         int scene, struct tally *t)
{
    static struct scene sc;
    memset(t, 0, sizeof *t);
    t->seed = seed;
    t->draws = draws;
    if (scene == 0)
        scene_a(&sc, p, 1, draw_many, t);
    else
        scene_b(&sc, p, 1, draw_many, t);
}

Test(place_random, picks_a_type_then_a_node_uniformly)
{
    static struct tally t;
    static const struct probe one = {1, 0, 0};
    random_tally(7, DRAWS, &one, 0, &t);
    /* 1 GPU: each type 1/3, then each node of it with room: V100 0, 2, 4
     * and K80 1, 5, 7 at 1/9 each, P100 3 and 6 at 1/6. */
    static const char *const v[] = {"V100 0:1", "V100 2:1", "V100 4:1",
                                    "K80 1:1",  "K80 5:1",  "K80 7:1"};
    cr_assert_eq(t.n, 8, "%d distinct placements", t.n);
    for (int i = 0; i < 6; i++) /* sd of each count: about 30 */
        cr_expect(abs(tally_count(&t, v[i]) - DRAWS / 9) < 150, "%s: %d",
                  v[i], tally_count(&t, v[i]));
    cr_expect(abs(tally_count(&t, "P100 3:1") - DRAWS / 6) < 180);
    cr_expect(abs(tally_count(&t, "P100 6:1") - DRAWS / 6) < 180);
}

Test(place_random, spreads_over_nodes_in_every_order)
{
    static struct tally t;
    static const struct probe nine = {9, 0, 0};
    random_tally(3, 3000, &nine, 0, &t);
    /* 9 GPUs: V100 or K80, each spread over its three nodes in a random
     * order (K80 has exactly 9 free; V100 10, so its last node gives what
     * is left): 6 orders of each type. */
    cr_assert_eq(t.n, 12, "%d distinct placements", t.n);
    int k80 = 0;
    for (int i = 0; i < t.n; i++) {
        k80 += strncmp(t.names[i], "K80", 3) == 0 ? t.counts[i] : 0;
        cr_expect_gt(t.counts[i], 3000 / 12 / 2, "%s: %d", t.names[i],
                     t.counts[i]);
    }
    cr_expect(abs(k80 - 1500) < 150, "K80 %d of 3000", k80);
    cr_expect_gt(tally_count(&t, "K80 7:3 1:4 5:2"), 0);
    cr_expect_gt(tally_count(&t, "V100 4:2 0:3 2:4"), 0);
}

Test(place_random, is_the_same_for_a_seed_and_differs_across_seeds)
{
    static struct tally a, b, c;
    static const struct probe six = {6, 0, 0};
    random_tally(42, 200, &six, 0, &a);
    random_tally(42, 200, &six, 0, &b);
    random_tally(43, 200, &six, 0, &c);
    int differ = 0;
    for (int i = 0; i < 200; i++) {
        cr_assert_str_eq(a.first[i], b.first[i], "draw %d", i);
        differ += strcmp(a.first[i], c.first[i]) != 0;
    }
    cr_expect_gt(differ, 50);
}

Test(place_random, keeps_to_the_types_a_class_may_use)
{
    static struct tally t;
    static const struct probe two = {2, 0, 2};
    random_tally(5, 1000, &two, 1, &t);
    /* Class 2 in scene B: no single V100 node, no V100 spread while one
     * has room: K80 nodes 4 and 5, half each. */
    cr_assert_eq(t.n, 2);
    cr_expect(abs(tally_count(&t, "K80 4:2") - 500) < 80);
    cr_expect(abs(tally_count(&t, "K80 5:2") - 500) < 80);
}
