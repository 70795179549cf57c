/* test_sim.c -- the core: event heap, cluster files, job states, decisions.
 * Schedules of real policies are checked in test_policies.c. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "sim.h"
#include "sim/fixtures.h"
#include "sim_internal.h"

/* ---- Event heap --------------------------------------------------------- */

Test(event_heap, equal_times_pop_in_insertion_order)
{
    struct sim_heap h = {0};
    for (uint32_t i = 0; i < 100; i++)
        cr_assert_eq(sim_heap_push(&h, 5.0, SIM_EV_FINISH, i, 0), 0);
    struct sim_event e;
    for (uint32_t i = 0; i < 100; i++) {
        cr_assert_eq(sim_heap_pop(&h, &e), 0);
        cr_assert_eq(e.job, i);
    }
    cr_assert_eq(sim_heap_pop(&h, &e), -1);
    sim_heap_free(&h);
}

Test(event_heap, pops_random_times_in_sorted_order_with_ties_stable)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    struct sim_heap h = {0};
    enum { N = 20000 };
    for (uint32_t i = 0; i < N; i++) {
        /* Few distinct times, so many ties. */
        double t = (double)gsl_rng_uniform_int(r, 50);
        cr_assert_eq(sim_heap_push(&h, t, SIM_EV_ARRIVAL, i, 0), 0);
        if (i % 7 == 0) { /* interleave pops with pushes */
            struct sim_event e;
            sim_heap_pop(&h, &e);
        }
    }
    struct sim_event prev, e;
    cr_assert_eq(sim_heap_pop(&h, &prev), 0);
    while (sim_heap_pop(&h, &e) == 0) {
        cr_assert(prev.time < e.time ||
                  (prev.time == e.time && prev.seq < e.seq));
        prev = e;
    }
    sim_heap_free(&h);
    gsl_rng_free(r);
}

static int by_time_then_job(const void *a, const void *b)
{
    const struct sim_event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->job < y->job ? -1 : x->job > y->job;
}

/* Every size from 1 to 70, so that the last parent has 1 to 4 children
 * at each depth: the pops give back every event pushed, in the order of
 * qsort on (time, push order). */
Test(event_heap, pops_every_event_in_the_order_of_a_sorted_reference)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (uint32_t n = 1; n <= 70; n++) {
        struct sim_heap h = {0};
        struct sim_event ref[70], e;
        for (uint32_t i = 0; i < n; i++) {
            double t = (double)gsl_rng_uniform_int(r, 20); /* ties too */
            ref[i] = (struct sim_event){.time = t, .job = i};
            cr_assert_eq(sim_heap_push(&h, t, SIM_EV_FINISH, i, 0), 0);
        }
        qsort(ref, n, sizeof *ref, by_time_then_job);
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_eq(sim_heap_pop(&h, &e), 0);
            cr_assert(e.time == ref[i].time && e.job == ref[i].job,
                      "size %u, pop %u: job %u at %g, want job %u at %g", n, i,
                      e.job, e.time, ref[i].job, ref[i].time);
        }
        cr_assert_eq(sim_heap_pop(&h, &e), -1);
        sim_heap_free(&h);
    }
    gsl_rng_free(r);
}

/* ---- Free-GPU map ------------------------------------------------------- */

static struct cluster *parse(const char *json)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    int rc = cluster_parse(json, "test", &c, &err);
    cr_assert_eq(rc, 0, "%s", err.text);
    return c;
}

static const char *const two_nodes_each =
    "{\"reference_gpu\": \"V100\", \"spread_slowdown\": 1.5,"
    " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 16384, \"speed\": 1},"
    "                 {\"name\": \"K80\", \"memory_mb\": 12288, \"speed\": 0.25}],"
    " \"nodes\": [{\"gpu_type\": \"K80\", \"gpus_per_node\": 4},"
    "           {\"gpu_type\": \"V100\", \"gpus_per_node\": 2, \"count\": 2},"
    "           {\"gpu_type\": \"K80\", \"gpus_per_node\": 4}]}";

Test(freemap, finds_the_lowest_numbered_node_with_room)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    /* K80 nodes are 0 and 3; V100 nodes are 1 and 2. */
    cr_assert_eq(sim_find_node(s, 1, 4), 0);
    cr_assert_eq(sim_find_node(s, 0, 2), 1);
    cr_assert_eq(sim_find_node(s, 0, 3), -1);
    sim_node_add_free(s, 0, -3);
    cr_assert_eq(sim_find_node(s, 1, 2), 3);
    cr_assert_eq(sim_find_node(s, 1, 1), 0);
    cr_assert_eq(sim_free_gpus(s, 1), 5);
    int32_t n;
    const int32_t *nodes = sim_type_nodes(s, 1, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(nodes[0], 0);
    cr_assert_eq(nodes[1], 3);
    sim_destroy(s);
    cluster_destroy(c);
}

/* ---- Cluster files ------------------------------------------------------ */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl && !nl[1])
        *nl = '\0';
    return buf;
}

/* Calls FN for every FOLDER/<case>.json with the path of <case>.expect. */
static int each_case(const char *folder,
                     void (*fn)(const char *json, const char *expect))
{
    char dir[1024], json[2048], expect[2048];
    snprintf(dir, sizeof dir, "%s/cluster/%s", HETSIM_TEST_DATA, folder);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no folder %s", dir);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(json, sizeof json, "%s/%s", dir, e->d_name);
        snprintf(expect, sizeof expect, "%s/%.*s.expect", dir,
                 (int)(len - 5), e->d_name);
        fn(json, expect);
        count++;
    }
    closedir(d);
    return count;
}

static void check_invalid(const char *json, const char *expect)
{
    const char *want = slurp(expect);
    struct cluster *c = (struct cluster *)1;
    struct sim_error err = {0};
    int rc = cluster_load(json, &c, &err);
    cr_assert_eq(rc, SIM_EPARSE, "%s: rc %d", json, rc);
    cr_assert_null(c);
    cr_assert_str_eq(err.source, json);
    long line = 0;
    int skip = 0;
    if (sscanf(want, "%ld: %n", &line, &skip) == 1 && skip > 0) {
        cr_assert_eq(err.line, line, "%s: line %ld, want %ld", json,
                     err.line, line);
        want += skip;
    }
    cr_assert(strstr(err.text, want), "%s: got \"%s\", want \"%s\"", json,
              err.text, want);
}

Test(cluster_file, rejects_every_invalid_case_with_the_expected_message)
{
    cr_assert_geq(each_case("invalid", check_invalid), 24);
}

static void check_valid(const char *json, const char *expect)
{
    struct cluster *c = NULL;
    struct sim_error err = {0};
    cr_assert_eq(cluster_load(json, &c, &err), 0, "%s: %s", json, err.text);
    FILE *f = fopen(expect, "r");
    char key[32], name[64];
    int a, b;
    double x, y;
    while (fscanf(f, "%31s", key) == 1) {
        if (!strcmp(key, "name") && fscanf(f, "%63s", name) == 1)
            cr_assert_str_eq(c->name, name);
        else if (!strcmp(key, "types") && fscanf(f, "%d", &a) == 1)
            cr_assert_eq(c->ntypes, a);
        else if (!strcmp(key, "nodes") && fscanf(f, "%d", &a) == 1)
            cr_assert_eq(c->nnodes, a);
        else if (!strcmp(key, "gpus") && fscanf(f, "%d", &a) == 1)
            cr_assert_eq(c->total_gpus, a);
        else if (!strcmp(key, "reference") && fscanf(f, "%63s", name) == 1)
            cr_assert_str_eq(c->types[c->reference].name, name);
        else if (!strcmp(key, "spread") && fscanf(f, "%lf", &x) == 1)
            cr_assert_eq(c->spread_slowdown, x);
        else if (!strcmp(key, "type") &&
                 fscanf(f, "%d %63s %d %d %lf %lf", &a, name, &b,
                        &(int){0}, &x, &y) == 6) {
            cr_assert_str_eq(c->types[a].name, name);
            cr_assert_eq(c->types[a].gpus, b);
            cr_assert_eq(c->types[a].memory_mb, x);
            cr_assert_eq(c->types[a].speed, y);
        } else
            cr_assert_fail("%s: bad line at %s", expect, key);
    }
    fclose(f);
    cluster_destroy(c);
}

Test(cluster_file, reads_every_valid_case_as_expected)
{
    cr_assert_geq(each_case("valid", check_valid), 2);
}

Test(cluster_file, keeps_optional_facts_and_node_order)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cluster/valid/interleaved.json",
             HETSIM_TEST_DATA);
    struct cluster *c;
    cr_assert_eq(cluster_load(path, &c, NULL), 0);
    cr_assert_eq(c->types[0].tflops_fp32, 10);
    cr_assert_eq(c->types[0].cost_per_hour, 0.9);
    cr_assert_eq(c->types[1].tflops_fp16, 0);
    int want_type[] = {1, 0, 0, 0, 1, 1}, want_gpus[] = {8, 2, 2, 2, 4, 4};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(c->nodes[i].gpu_type, want_type[i]);
        cr_assert_eq(c->nodes[i].gpus, want_gpus[i]);
    }
    cluster_destroy(c);
}

Test(cluster_file, reports_a_missing_file_as_an_io_error)
{
    struct cluster *c;
    struct sim_error err = {0};
    cr_assert_eq(cluster_load("/nonexistent/c.json", &c, &err), SIM_EIO);
    cr_assert_null(c);
    cr_assert(strstr(err.text, "No such file"));
}

Test(cluster_preset, builds_gavel_108_with_36_gpus_of_each_type)
{
    struct cluster *c;
    cr_assert_eq(cluster_preset("gavel-108", &c), 0);
    cr_assert_eq(c->total_gpus, 108);
    cr_assert_eq(c->nnodes, 27);
    for (int t = 0; t < 3; t++) {
        cr_assert_eq(c->types[t].gpus, 36);
        cr_assert_eq(c->types[t].max_per_node, 4);
    }
    cr_assert_str_eq(c->types[c->reference].name, "V100");
    cluster_destroy(c);
}

Test(cluster_preset, lists_every_preset_and_each_one_parses)
{
    size_t i = 0;
    for (; cluster_preset_name(i); i++) {
        struct cluster *c;
        cr_assert_eq(cluster_preset(cluster_preset_name(i), &c), 0);
        cr_assert_gt(c->total_gpus, 0);
        cr_assert_not_null(cluster_preset_description(i));
        cluster_destroy(c);
    }
    cr_assert_geq(i, 3);
    struct cluster *c;
    cr_assert_eq(cluster_preset("no-such-cluster", &c), SIM_ENOTFOUND);
}

/* ---- Engine ------------------------------------------------------------- */

static const struct sim_policy first_node = {"first-node", NULL, NULL, NULL,
                                             ts_first_node_schedule};

static void add(struct sim *s, double submit, double duration, int gpus,
                uint32_t allowed)
{
    struct sim_job_spec spec = {submit, duration, gpus, allowed,
                                (uint32_t)sim_njobs(s), 0, 0, 0, 0};
    cr_assert_eq(sim_add_job(s, &spec), 0);
}

Test(engine, runs_jobs_at_their_type_speed_and_frees_gpus_on_finish)
{
    /* V100 nodes 1, 2 (2 GPUs each); K80 nodes 0, 3 (4 each), speed 0.25.
     * K80 is type 1 but listed second, so first-node tries V100 first. */
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 100, 2, 0);   /* V100 node 1: 0 -> 100 */
    add(s, 0, 100, 2, 0);   /* V100 node 2: 0 -> 100 */
    add(s, 10, 50, 2, 0);   /* K80 node 0: runs 50 / 0.25 = 200, 10 -> 210 */
    add(s, 20, 30, 1, 1u);  /* V100 only: waits for 100, ends 130 */
    add(s, 5, 40, 4, 2u);   /* K80 only: node 0 at 5 -> 5 + 160 = 165 */
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &first_node, NULL, &err), 0, "%s", err.text);
    double want_start[] = {0, 0, 10, 100, 5};
    double want_finish[] = {100, 100, 210, 130, 165};
    int want_type[] = {0, 0, 1, 0, 1};
    for (uint32_t j = 0; j < 5; j++) {
        const struct sim_job *job = sim_job(s, j);
        cr_assert_eq(job->state, JOB_COMPLETED);
        cr_assert_float_eq(job->start_time, want_start[j], 1e-9, "job %u", j);
        cr_assert_float_eq(job->finish_time, want_finish[j], 1e-9, "job %u",
                           j);
        cr_assert_eq(job->gpu_type, want_type[j]);
    }
    /* Job 2 went to K80 node 3, as node 0 was taken by job 4 at t=5. */
    cr_assert_eq(sim_free_gpus(s, 0), 4);
    cr_assert_eq(sim_free_gpus(s, 1), 8);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(engine, marks_jobs_larger_than_any_type_unschedulable_without_blocking)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 10, 9, 0);  /* 9 > 8 K80s and > 4 V100s */
    add(s, 0, 10, 5, 1u); /* V100 only, 5 > 4 */
    add(s, 1, 10, 1, 0);
    cr_assert_eq(sim_run(s, &first_node, NULL, NULL), 0);
    cr_assert_eq(sim_job(s, 0)->state, JOB_FAILED);
    cr_assert_eq(sim_job(s, 0)->failure, JOB_FAIL_UNSCHEDULABLE);
    cr_assert_eq(sim_job(s, 1)->failure, JOB_FAIL_UNSCHEDULABLE);
    cr_assert_eq(sim_job(s, 2)->state, JOB_COMPLETED);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.jobs_unschedulable, 2);
    cr_assert_eq(m.jobs_failed, 0);
    cr_assert_eq(m.jobs_completed, 1);
    sim_destroy(s);
    cluster_destroy(c);
}

/* A policy that makes one bad decision, chosen by the test. */
static int bad_choice;
static int bad_schedule(void *state, struct sim *s)
{
    (void)state;
    struct sim_seg two[2] = {{1, 1}, {1, 1}};
    struct sim_seg one = {1, 1};
    struct sim_placement p = {0, 1, &one, NULL};
    switch (bad_choice) {
    case 0: one.gpus = 3; break;           /* node 1 has 2 GPUs */
    case 1: p.seg = two; p.nseg = 2; break; /* node 1 named twice */
    case 2: one.node = 0; break;           /* node 0 holds K80s */
    case 3: p.gpu_type = 7; break;         /* no such type */
    case 4: return sim_start(s, 99, &p);   /* no such job */
    case 5: one.gpus = 2; break;           /* job wants 1 GPU */
    }
    return sim_start(s, (uint32_t)sim_queue_head(s), &p);
}

Test(engine, refuses_illegal_decisions_naming_the_policy)
{
    const char *want[] = {"asks 3 GPUs of node 1, which has 2 free",
                          "node 1 named twice", "node 0 holds no V100",
                          "no GPU type 7", "no job 99",
                          "needs 1 GPUs, placement gives 2"};
    struct cluster *c = parse(two_nodes_each);
    for (bad_choice = 0; bad_choice < 6; bad_choice++) {
        struct sim *s = sim_create(c, 1);
        add(s, 0, 10, 1, 0);
        struct sim_policy p = {"broken", NULL, NULL, NULL, bad_schedule};
        struct sim_error err = {0};
        cr_assert_eq(sim_run(s, &p, NULL, &err), SIM_EDECISION);
        cr_assert(strstr(err.text, "policy broken"), "%s", err.text);
        cr_assert(strstr(err.text, want[bad_choice]), "%d: %s", bad_choice,
                  err.text);
        sim_destroy(s);
    }
    cluster_destroy(c);
}

static int start_twice_schedule(void *state, struct sim *s)
{
    (void)state;
    struct sim_seg one = {1, 1};
    struct sim_placement p = {0, 1, &one, NULL};
    int rc = sim_start(s, 0, &p);
    return rc ? rc : sim_start(s, 0, &p);
}

Test(engine, refuses_to_start_a_job_that_is_not_waiting)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 10, 1, 0);
    struct sim_policy p = {"twice", NULL, NULL, NULL, start_twice_schedule};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), SIM_EDECISION);
    cr_assert(strstr(err.text, "job 0 is not waiting"), "%s", err.text);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(engine, reports_a_policy_that_leaves_jobs_waiting_forever)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 10, 1, 0);
    struct sim_policy idle = {"idle", NULL, NULL, NULL, NULL};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &idle, NULL, &err), SIM_EDECISION);
    cr_assert(strstr(err.text, "left 1 jobs waiting"), "%s", err.text);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(engine, refuses_jobs_with_impossible_specs)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    struct sim_job_spec bad[] = {
        {-1, 10, 1, 0, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0, 0, 0, 0},
        {0, 10, 0, 0, 0, 0, 0, 0, 0},
        {0, 10, 1, 4u, 0, 0, 0, 0, 0}, /* type 2 does not exist */
        {0, 10, 1, 0, 0, 5, 0, 0, 0},  /* no class 5 */
        {0, 10, 1, 0, 0, 0, -1, 0, 0}, /* negative estimate */
        {0, 10, 1, 0, 0, 0, 0, -1, 0}, /* negative memory need */
        {0, 10, 1, 0, 0, 0, 0, 0, -1}, /* negative memory estimate */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sim_add_job(s, &bad[i]), SIM_EINVAL, "case %zu", i);
    sim_destroy(s);
    cluster_destroy(c);
}

struct arrivals {
    uint32_t order[8];
    int n;
};
static void record_arrival(void *state, struct sim *s, uint32_t job)
{
    (void)s;
    struct arrivals *a = state;
    a->order[a->n++] = job;
}

Test(engine, delivers_unsorted_jobs_by_submit_time_ties_in_file_order)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    double submit[] = {30, 10, 20, 10, 0};
    for (int i = 0; i < 5; i++)
        add(s, submit[i], 1, 1, 0);
    struct arrivals a = {.n = 0};
    struct sim_policy p = {"rec", &a, record_arrival, NULL,
                           ts_first_node_schedule};
    cr_assert_eq(sim_run(s, &p, NULL, NULL), 0);
    uint32_t want[] = {4, 1, 3, 2, 0};
    cr_assert_eq(a.n, 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(a.order[i], want[i]);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(engine, keeps_a_job_record_within_256_bytes)
{
    cr_assert_leq(sizeof(struct sim_job), 256);
}

Test(engine, runs_a_job_class_at_its_own_seconds_per_unit_of_work)
{
    /* Class 1: 0.5 s per step on V100, 2 s per step on K80, and 3 s per
     * step on V100 spread; it cannot run spread on K80. */
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    struct sim_class_spec spec = {{0.5, 2}, {3, 0}};
    int32_t cls;
    cr_assert_eq(sim_add_class(s, &spec, &cls), 0);
    cr_assert_eq(cls, 1);
    cr_assert_eq(sim_nclasses(s), 2);
    struct sim_job_spec a = {0, 100, 2, 0, 0, cls, 0, 0, 0};  /* V100 node: 50 s */
    struct sim_job_spec b = {0, 100, 2, 2u, 1, cls, 0, 0, 0}; /* K80 only: 200 s */
    cr_assert_eq(sim_add_job(s, &a), 0);
    cr_assert_eq(sim_add_job(s, &b), 0);
    cr_assert_float_eq(sim_runtime_on(s, 0, 0, 1), 300, 1e-12);
    cr_assert_float_eq(sim_runtime_on(s, 0, 1, 1), 0, 1e-12);
    cr_assert_eq(sim_run(s, &first_node, NULL, NULL), 0);
    cr_assert_float_eq(sim_job(s, 0)->finish_time, 50, 1e-9);
    cr_assert_float_eq(sim_job(s, 1)->finish_time, 200, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

Test(engine, excludes_gpu_types_a_class_cannot_run_on)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    struct sim_class_spec spec = {{0, 1}, {0, 0}}; /* K80 only */
    int32_t cls;
    cr_assert_eq(sim_add_class(s, &spec, &cls), 0);
    struct sim_job_spec a = {0, 10, 1, 1u, 0, cls, 0, 0, 0}; /* asks V100 only */
    struct sim_job_spec b = {0, 10, 1, 0, 1, cls, 0, 0, 0};
    cr_assert_eq(sim_add_job(s, &a), 0);
    cr_assert_eq(sim_add_job(s, &b), 0);
    cr_assert_eq(sim_job(s, 1)->allowed, 2u);
    cr_assert_eq(sim_run(s, &first_node, NULL, NULL), 0);
    cr_assert_eq(sim_job(s, 0)->failure, JOB_FAIL_UNSCHEDULABLE);
    cr_assert_eq(sim_job(s, 1)->gpu_type, 1);
    struct sim_class_spec bad = {{-1}, {0}};
    cr_assert_eq(sim_add_class(s, &bad, &cls), SIM_EINVAL);
    sim_destroy(s);
    cluster_destroy(c);
}

/* ---- Preemption --------------------------------------------------------- */

/* One GPU; job 0 (100 s) is preempted at 40 by job 1 (10 s), restarts at 50
 * paying a 5 s overhead, is preempted again at 52 (still in its overhead,
 * so no work is lost or gained) by job 2 (1 s), and restarts at 53:
 * 53 + 5 + 60 = 118. It ran 40 + 2 + 65 = 107 s and waited 11 s; overheads
 * took 2 + 5 = 7 GPU-seconds. Runs that schedule with SCHEDULE and checks
 * those figures. */
static void check_118_schedule(const char *name,
                               int (*schedule)(void *, struct sim *))
{
    struct cluster *c = parse(
        "{\"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 1}]}");
    struct sim *s = sim_create(c, 1);
    sim_set_restart_overhead(s, 5);
    add(s, 0, 100, 1, 0);
    add(s, 40, 10, 1, 0);
    add(s, 52, 1, 1, 0);
    struct sim_policy p = {name, NULL, NULL, NULL, schedule};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), 0, "%s", err.text);
    const struct sim_job *j0 = sim_job(s, 0);
    cr_assert_float_eq(j0->finish_time, 118, 1e-9);
    cr_assert_eq(j0->preemptions, 2);
    cr_assert_float_eq(j0->run_s, 107, 1e-9);
    cr_assert_float_eq(j0->start_time, 0, 1e-9);
    cr_assert_float_eq(sim_job(s, 1)->start_time, 40, 1e-9);
    cr_assert_float_eq(sim_job(s, 1)->finish_time, 50, 1e-9);
    cr_assert_float_eq(sim_job(s, 2)->finish_time, 53, 1e-9);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_eq(m.preemptions_total, 2);
    cr_assert_float_eq(m.overhead_gpu_s, 7, 1e-9);
    cr_assert_float_eq(m.avg_wait_s, (11.0 + 0 + 0) / 3, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}

/* Whenever another job waits while job 0 runs, job 0 is preempted; then
 * waiting jobs start in queue order where they fit. */
static int preempt_zero_schedule(void *state, struct sim *s)
{
    int32_t head = sim_queue_head(s);
    if (head >= 0 && head != 0 && sim_job(s, 0)->state == JOB_RUNNING) {
        int rc = sim_preempt(s, 0);
        if (rc)
            return rc;
    }
    return ts_first_node_schedule(state, s);
}

Test(preemption, keeps_work_done_and_charges_the_restart_overhead)
{
    check_118_schedule("preempt-zero", preempt_zero_schedule);
}

/* preempt_zero_schedule with sim_swap: the waiting head takes job 0's GPU. */
static int swap_zero_schedule(void *state, struct sim *s)
{
    int32_t head = sim_queue_head(s);
    if (head >= 0 && head != 0 && sim_job(s, 0)->state == JOB_RUNNING) {
        int rc = sim_swap(s, 0, (uint32_t)head);
        if (rc)
            return rc;
    }
    return ts_first_node_schedule(state, s);
}

/* The same schedule, each preemption and restart made in one sim_swap: the
 * same figures, worked out by hand above. */
Test(preemption, swap_is_a_preemption_and_a_start_on_the_same_gpus)
{
    check_118_schedule("swap-zero", swap_zero_schedule);
}

static int swap_refused;
static int swap_two_for_one(void *state, struct sim *s)
{
    if (sim_now(s) == 10 && sim_job(s, 0)->state == JOB_RUNNING) {
        int rc = sim_swap(s, 0, 1); /* job 1 needs 2 GPUs, job 0 holds 1 */
        swap_refused = rc == SIM_EDECISION &&
                       sim_job(s, 0)->state == JOB_RUNNING &&
                       sim_job(s, 1)->state == JOB_QUEUED;
        return rc;
    }
    return ts_first_node_schedule(state, s);
}

Test(preemption, swap_refuses_a_job_that_needs_other_gpus)
{
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 50, 1, 2u);
    add(s, 10, 10, 2, 2u);
    struct sim_policy p = {"two-for-one", NULL, NULL, NULL, swap_two_for_one};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), SIM_EDECISION);
    cr_assert(swap_refused);
    sim_destroy(s);
    cluster_destroy(c);
}

static double seen_work_left, seen_attained;
static int observe_then_preempt(void *state, struct sim *s)
{
    if (sim_now(s) == 30) {
        seen_work_left = sim_work_left(s, 0);
        seen_attained = sim_attained_s(s, 0);
        return sim_preempt(s, 1); /* job 1 is still waiting */
    }
    return ts_first_node_schedule(state, s);
}

Test(preemption, reports_progress_and_refuses_to_preempt_a_waiting_job)
{
    /* Job 0 runs from 0 on a K80 (speed 0.25): at 30 it has done 7.5 of
     * its 50 reference-seconds of work. */
    struct cluster *c = parse(two_nodes_each);
    struct sim *s = sim_create(c, 1);
    add(s, 0, 50, 1, 2u);
    add(s, 30, 10, 8, 2u);
    struct sim_policy p = {"peek", NULL, NULL, NULL, observe_then_preempt};
    struct sim_error err = {0};
    cr_assert_eq(sim_run(s, &p, NULL, &err), SIM_EDECISION);
    cr_assert_float_eq(seen_work_left, 42.5, 1e-12);
    cr_assert_float_eq(seen_attained, 30, 1e-12);
    cr_assert(strstr(err.text, "job 1 is not running"), "%s", err.text);
    sim_destroy(s);
    cluster_destroy(c);
}

/* As above, with job 0's own overhead of 3 s (its job type's, from the
 * cluster file) instead of the run's 5 s: restarts at 50 (preempted at 52,
 * having paid 2 of 3 s) and at 53: 53 + 3 + 60 = 116; it ran 40 + 2 + 63 =
 * 105 s; overheads took 2 + 3 = 5 GPU-seconds. */
Test(preemption, uses_the_restart_overhead_of_the_job_type)
{
    struct cluster *c = parse(
        "{\"restart_overhead_s\": {\"ResNet-50\": 3, \"A3C\": 0},"
        " \"gpu_types\": [{\"name\": \"G\", \"memory_mb\": 1, \"speed\": 1}],"
        " \"nodes\": [{\"gpu_type\": \"G\", \"gpus_per_node\": 1}]}");
    cr_assert_eq(cluster_job_overhead(c, "ResNet-50"), 3);
    cr_assert_eq(cluster_job_overhead(c, "A3C"), 0);
    cr_assert_eq(cluster_job_overhead(c, "BERT"), -1);
    struct sim *s = sim_create(c, 1);
    sim_set_restart_overhead(s, 5);
    add(s, 0, 100, 1, 0);
    add(s, 40, 10, 1, 0);
    add(s, 52, 1, 1, 0);
    sim_set_job_restart_overhead(s, 0, cluster_job_overhead(c, "ResNet-50"));
    struct sim_policy p = {"preempt-zero", NULL, NULL, NULL,
                           preempt_zero_schedule};
    cr_assert_eq(sim_run(s, &p, NULL, NULL), 0);
    cr_assert_float_eq(sim_job(s, 0)->finish_time, 116, 1e-9);
    cr_assert_float_eq(sim_job(s, 0)->run_s, 105, 1e-9);
    struct sim_summary m;
    cr_assert_eq(sim_summarize(s, &m), 0);
    cr_assert_float_eq(m.overhead_gpu_s, 5, 1e-9);
    sim_destroy(s);
    cluster_destroy(c);
}
