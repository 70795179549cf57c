/* test_plugin.c -- policies loaded from shared objects (pol_load_plugin):
 * the example plugins schedule exactly as the built-in rule they copy or
 * as drawn by hand, in process and through `hetsim run --policy FILE.so`;
 * bad files are refused with messages that say why.
 *
 * Where the plugins are: policies/examples/CMakeLists.txt writes them to
 * <build>/policies/examples/, and the hetsim binary (HETSIM_BIN, defined
 * for every test suite) is <build>/hetsim, so each is found from
 * HETSIM_BIN's folder. Building the policies library builds them first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "policy.h"
#include "traces.h"

/* <build>/policies/examples/lib<NAME>.so */
static const char *plugin_path(const char *name)
{
    static char path[4][4096];
    static int next;
    char *p = path[next++ % 4];
    const char *bin = HETSIM_BIN;
    const char *slash = strrchr(bin, '/');
    int dir = slash ? (int)(slash - bin) : 1;
    snprintf(p, 4096, "%.*s/policies/examples/lib%s.so", dir,
             slash ? bin : ".", name);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "%s is missing: build the project first",
                 p);
    return p;
}

static const struct pol_ops *load(const char *name)
{
    const struct pol_ops *ops = NULL;
    char why[1024] = "";
    cr_assert_eq(pol_load_plugin(plugin_path(name), &ops, why, sizeof why),
                 0, "%s", why);
    cr_assert_not_null(ops);
    return ops;
}

/* Runs S under OPS with placement PLACE and options (KEYS, VALUES, N).
 * Returns pol_bind's code (the run happens only when it is 0); WHY gets
 * its message. */
static int run_with(struct sim *s, const struct pol_ops *ops,
                    enum pol_placement place, const char *const *keys,
                    const char *const *values, size_t n, char *why,
                    size_t cap)
{
    struct pol_config cfg = {.cluster = sim_cluster(s), .placement = place,
                             .seed = 1, .keys = keys, .values = values,
                             .nopts = n, .error = why, .error_cap = cap};
    return th_bind_run(s, ops, &cfg, NULL);
}

/* ---- Same schedule as the built-in rule --------------------------------- */

static uint32_t allowed_mask(const struct cluster *c, const char *types)
{
    uint32_t mask = 0;
    while (*types) {
        size_t len = strcspn(types, "|");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, types);
        int32_t t = cluster_find_type(c, name);
        cr_assert_geq(t, 0, "type %s", name);
        mask |= 1u << t;
        types += len + (types[len] == '|');
    }
    return mask;
}

/* The Gavel-derived trace (2,000 jobs) on gavel-108, as an engine. */
static struct sim *gavel_sim(const struct trace *t, const struct cluster *c)
{
    struct sim *s = sim_create(c, 1);
    cr_assert_not_null(s);
    for (size_t i = 0; i < t->njobs; i++) {
        const struct trace_job *tj = &t->jobs[i];
        struct sim_job_spec spec = {
            tj->submit_time, tj->duration, tj->num_gpus,
            allowed_mask(c, trace_str(t, tj->gpu_types)), (uint32_t)i, 0, 0, 0, 0};
        cr_assert_eq(sim_add_job(s, &spec), 0);
    }
    return s;
}

Test(plugin, fifo_plugin_starts_and_ends_every_job_as_builtin_fifo_does)
{
    struct trace *t = NULL;
    struct trace_error terr = {0};
    cr_assert_eq(trace_read_native(HETSIM_SOURCE_DIR
                                   "/traces/gavel/msr-seed0-6214e9.csv",
                                   0, &t, &terr),
                 0, "%s", terr.text);
    struct cluster *c = NULL;
    cr_assert_eq(cluster_preset("gavel-108", &c), 0);
    const struct pol_ops *fifo = pol_find("fifo"), *plug = load("fifo_plugin");
    cr_assert_not_null(fifo);
    for (int k = 0; k < POL_PLACE_COUNT; k++) { /* under every placement */
        struct sim *a = gavel_sim(t, c), *b = gavel_sim(t, c);
        char why[256] = "";
        cr_assert_eq(run_with(a, fifo, (enum pol_placement)k, NULL, NULL, 0,
                              why, sizeof why), 0, "%s", why);
        cr_assert_eq(run_with(b, plug, (enum pol_placement)k, NULL, NULL, 0,
                              why, sizeof why), 0, "%s", why);
        size_t started = 0;
        for (uint32_t j = 0; j < sim_njobs(a); j++) {
            const struct sim_job *x = sim_job(a, j), *y = sim_job(b, j);
            cr_assert_eq(x->start_time, y->start_time, "%s: job %u",
                         pol_placement_name((enum pol_placement)k), j);
            cr_assert_eq(x->finish_time, y->finish_time, "job %u", j);
            cr_assert_eq(x->gpu_type, y->gpu_type, "job %u", j);
            started += x->start_time >= 0;
        }
        cr_assert_eq(started, t->njobs);
        sim_destroy(a);
        sim_destroy(b);
    }
    cluster_destroy(c);
    trace_destroy(t);
}

/* One V100 node of 4 GPUs: run times are the durations. */
static const char *const one_node =
    "{\"name\": \"one\", \"reference_gpu\": \"V100\","
    " \"gpu_types\": [{\"name\": \"V100\", \"memory_mb\": 16384, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"V100\", \"gpus_per_node\": 4}]}";

/* JOBS (N rows of submit time, GPUs, duration) on one_node. */
static struct sim *small_sim(struct cluster **c, const double (*jobs)[3],
                             uint32_t n)
{
    struct sim_error err = {0};
    cr_assert_eq(cluster_parse(one_node, "one", c, &err), 0, "%s", err.text);
    struct sim *s = sim_create(*c, 1);
    for (uint32_t i = 0; i < n; i++) {
        struct sim_job_spec spec = {jobs[i][0], jobs[i][2],
                                    (int32_t)jobs[i][1], 0, i, 0, 0, 0, 0};
        cr_assert_eq(sim_add_job(s, &spec), 0);
    }
    return s;
}

/* The schedule, drawn by hand:
 *  j0 t=0  4 GPUs 10 s  starts 0, ends 10
 *  j1 t=1  3 GPUs 10 s  waits; at 10 it is the largest of j1..j4, so it
 *                       goes last; 3 GPUs are free only at 14: 14-24
 *  j2 t=2  1 GPU   5 s  at 10 (fewest GPUs, earliest): 10-15
 *  j3 t=3  2 GPUs  4 s  at 10, after j2 and j4: 10-14
 *  j4 t=4  1 GPU   2 s  at 10: 10-12
 *  j5 t=20 1 GPU   1 s  the one free GPU (j2's): 20-21
 * (FIFO would start j1 at 10.) */
Test(plugin, smallest_gpus_first_follows_the_schedule_drawn_by_hand)
{
    static const double jobs[][3] = {
        {0, 4, 10}, {1, 3, 10}, {2, 1, 5}, {3, 2, 4}, {4, 1, 2}, {20, 1, 1},
    };
    struct cluster *c = NULL;
    struct sim *s = small_sim(&c, jobs, 6);
    char why[256] = "";
    cr_assert_eq(run_with(s, load("smallest_gpus_first"), POL_PLACE_FASTEST,
                          NULL, NULL, 0, why, sizeof why), 0, "%s", why);
    static const double want[][2] = {
        {0, 10}, {14, 24}, {10, 15}, {10, 14}, {10, 12}, {20, 21},
    };
    for (uint32_t j = 0; j < 6; j++) {
        cr_expect_eq(sim_job(s, j)->start_time, want[j][0], "job %u", j);
        cr_expect_eq(sim_job(s, j)->finish_time, want[j][1], "job %u", j);
    }
    sim_destroy(s);
    cluster_destroy(c);
}

Test(plugin, options_reach_the_plugin_and_bad_ones_are_refused)
{
    const struct pol_ops *ops = load("smallest_gpus_first");
    cr_assert_str_eq(ops->name, "smallest_gpus_first");
    cr_assert_str_eq(ops->params[0].name, "max_gpus");
    cr_assert_null(ops->params[1].name);
    cr_assert_eq(ops->preemptive, 0);
    /* j0 holds the node until 10; then j2 (3 GPUs) goes before j1 (4),
     * unless max_gpus=2 makes them equals, served in arrival order. */
    static const double jobs[][3] = {{0, 4, 10}, {1, 4, 10}, {2, 3, 10}};
    struct cluster *c = NULL;
    struct sim *s = small_sim(&c, jobs, 3);
    char why[256] = "";
    const char *k1[] = {"size"}, *v1[] = {"2"};
    cr_assert_eq(run_with(s, ops, POL_PLACE_FASTEST, k1, v1, 1, why,
                          sizeof why), SIM_EINVAL);
    cr_assert_str_eq(why, "policy smallest_gpus_first has no option 'size' "
                          "(its options: max_gpus)");
    const char *k2[] = {"max_gpus"}, *v2[] = {"two"};
    cr_assert_eq(run_with(s, ops, POL_PLACE_FASTEST, k2, v2, 1, why,
                          sizeof why), SIM_EINVAL);
    cr_assert_str_eq(why, "smallest_gpus_first: max_gpus wants a whole "
                          "number >= 0, got 'two'");
    const char *v3[] = {"2"};
    cr_assert_eq(run_with(s, ops, POL_PLACE_FASTEST, k2, v3, 1, why,
                          sizeof why), 0, "%s", why);
    cr_expect_eq(sim_job(s, 1)->start_time, 10);
    cr_expect_eq(sim_job(s, 2)->start_time, 20);
    sim_destroy(s);
    cluster_destroy(c);
    s = small_sim(&c, jobs, 3);
    cr_assert_eq(run_with(s, ops, POL_PLACE_FASTEST, NULL, NULL, 0, why,
                          sizeof why), 0, "%s", why);
    cr_expect_eq(sim_job(s, 1)->start_time, 20);
    cr_expect_eq(sim_job(s, 2)->start_time, 10);
    sim_destroy(s);
    cluster_destroy(c);
}

/* ---- Refusals -------------------------------------------------------------- */

static int try_load(const char *path, char *why, size_t cap)
{
    static const struct pol_ops sentinel;
    const struct pol_ops *ops = &sentinel;
    int rc = pol_load_plugin(path, &ops, why, cap);
    if (rc)
        cr_assert_null(ops);
    return rc;
}

Test(plugin, a_plugin_for_another_abi_version_is_refused)
{
    const char *path = plugin_path("wrong_abi_plugin");
    char why[1024], want[1024];
    cr_assert_eq(try_load(path, why, sizeof why), SIM_EPARSE);
    snprintf(want, sizeof want, "%s: policy plugin built for ABI version 3, "
             "but this hetsim loads ABI version 2: rebuild it against this "
             "hetsim's <hetsim/policy_abi.h>", path);
    cr_assert_str_eq(why, want);
}

Test(plugin, a_missing_file_is_named_with_the_reason)
{
    char why[1024];
    cr_assert_eq(try_load("/nonexistent/libnothing.so", why, sizeof why),
                 SIM_EIO);
    cr_assert_str_eq(why, "/nonexistent/libnothing.so: cannot open policy "
                          "plugin: No such file or directory");
}

Test(plugin, a_shared_object_without_the_entry_point_is_refused)
{
    const char *path = plugin_path("not_a_plugin");
    char why[1024], want[1024];
    cr_assert_eq(try_load(path, why, sizeof why), SIM_EPARSE);
    snprintf(want, sizeof want, "%s: not a hetsim policy plugin: it exports "
             "no function hetsim_policy_plugin() (see "
             "<hetsim/policy_abi.h>)", path);
    cr_assert_str_eq(why, want);
}

Test(plugin, a_file_that_is_no_shared_object_is_refused)
{
    char path[] = "/tmp/hetsim-plugin-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "not ELF\n", 8), 8);
    close(fd);
    char why[1024], want[1024];
    int rc = try_load(path, why, sizeof why);
    remove(path);
    cr_assert_eq(rc, SIM_EPARSE);
    snprintf(want, sizeof want, "%s: not a loadable shared object: ", path);
    cr_assert_eq(strncmp(why, want, strlen(want)), 0, "%s", why);
    cr_assert_gt(strlen(why), strlen(want), "dlerror() adds the reason");
}

Test(plugin, loading_a_file_twice_gives_the_same_ops)
{
    const struct pol_ops *a = load("fifo_plugin"), *b = load("fifo_plugin");
    cr_assert_eq(a, b);
    cr_assert_str_eq(a->name, "fifo_plugin");
    cr_assert_neq(load("smallest_gpus_first"), a);
}

/* ---- Through the command line ------------------------------------------- */

static size_t slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n;
}

/* Runs hetsim with policy POLICY into DIR/OUT; its exit code. */
static int hetsim_run(const char *dir, const char *out, const char *policy)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "%s run -q --trace %s/traces/gavel/msr-seed0-6214e9.csv "
             "--cluster gavel-108 --policy %s --out %s/%s 2>%s/%s.err",
             HETSIM_BIN, HETSIM_SOURCE_DIR, policy, dir, out, dir, out);
    int status = system(cmd);
    cr_assert(WIFEXITED(status), "%s", cmd);
    return WEXITSTATUS(status);
}

/* Drops the line of A that starts with KEY (in place). */
static void drop_line(char *a, const char *key)
{
    char *p = strstr(a, key);
    cr_assert_not_null(p, "no %s", key);
    char *end = strchr(p, '\n');
    memmove(p, end + 1, strlen(end + 1) + 1);
}

Test(plugin, the_cli_runs_a_plugin_to_the_same_summary_as_builtin_fifo)
{
    char dir[] = "/tmp/hetsim-plugin-cli-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *so = plugin_path("fifo_plugin");
    cr_assert_eq(hetsim_run(dir, "plugin", so), 0);
    cr_assert_eq(hetsim_run(dir, "fifo", "fifo"), 0);
    static char a[1 << 16], b[1 << 16], path[8192];
    snprintf(path, sizeof path, "%s/plugin/summary.json", dir);
    slurp(path, a, sizeof a);
    snprintf(path, sizeof path, "%s/fifo/summary.json", dir);
    slurp(path, b, sizeof b);
    char line[8192];
    snprintf(line, sizeof line, "\t\"policy\":\t\"%s\",\n", so);
    cr_assert_not_null(strstr(a, line), "%s", a);
    cr_assert_not_null(strstr(b, "\t\"policy\":\t\"fifo\",\n"));
    drop_line(a, "\t\"policy\":");
    drop_line(b, "\t\"policy\":");
    cr_assert_str_eq(a, b);

    cr_assert_eq(hetsim_run(dir, "bad", plugin_path("wrong_abi_plugin")), 3);
    snprintf(path, sizeof path, "%s/bad.err", dir);
    slurp(path, a, sizeof a);
    cr_assert_not_null(strstr(a, "hetsim: error: "), "%s", a);
    cr_assert_not_null(strstr(a, "built for ABI version 3, but this hetsim "
                                 "loads ABI version 2"), "%s", a);
    cr_assert_eq(hetsim_run(dir, "missing", "./no-such-plugin.so"), 3);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    cr_assert_eq(system(rm), 0);
}
