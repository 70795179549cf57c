/* pack_out.c -- what `hetsim pack` writes: the curves (pack.csv), one row
 * per placement (pack_summary.csv, summary.json, the printed table) and two
 * charts against the arrived workload. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pack_internal.h"
#include "plots.h"

double pack_at(const struct pack_input *in, const double *series, double at)
{
    double v = NAN;
    for (size_t k = 0; k < in->npods && in->arrived[k] <= at; k++)
        v = series[k];
    return v;
}

/* Mean fragmentation rate over the pods that arrive while the cluster is
 * not yet asked for more than its GPUs (all pods if none does). */
static double frag_mean(const struct pack_input *in,
                        const struct pack_result *r)
{
    double sum = 0;
    size_t n = 0;
    for (size_t k = 0; k < in->npods && (in->arrived[k] <= 1 || !n); k++) {
        sum += r->frag[k];
        n++;
    }
    return sum / (double)n;
}

/* A number, or nothing for NAN (an empty CSV cell). */
static void put(FILE *f, double x, const char *sep)
{
    char buf[32];
    fprintf(f, "%s%s", isnan(x) ? "" : cli_fmt_double(buf, x), sep);
}

static int write_curves(const char *dir, const struct pack_input *in,
                        const struct pack_result *r, size_t nr)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, dir, "pack.csv"))
        return -1;
    fprintf(a.f, "placement,pods_arrived,arrived,pods_placed,"
                 "allocation_rate,frag_gpus,frag_rate\n");
    for (size_t i = 0; i < nr; i++) {
        size_t placed = 0;
        for (size_t k = 0; k < in->npods; k++) {
            /* A pod was placed when the allocation grew. */
            placed += r[i].alloc[k] > (k ? r[i].alloc[k - 1] : 0);
            fprintf(a.f, "%s,%zu,", pol_share_rule_name(r[i].rule), k + 1);
            put(a.f, in->arrived[k], ",");
            fprintf(a.f, "%zu,", placed);
            put(a.f, r[i].alloc[k], ",");
            put(a.f, r[i].frag[k] * in->cluster->total_gpus, ",");
            put(a.f, r[i].frag[k], "\n");
        }
    }
    return cli_atomic_commit(&a);
}

#define SUMMARY_HEADER                                                         \
    "placement,pods,placed,failed,never_fit,first_failure_at,allocation_at_"   \
    "100,"                                                                     \
    "allocation_final,frag_at_50,frag_at_80,frag_at_100,frag_rate_mean\n"

static void summary_row(FILE *f, const struct pack_input *in,
                        const struct pack_result *r)
{
    fprintf(f, "%s,%zu,%zu,%zu,%zu,", pol_share_rule_name(r->rule), in->npods,
            r->placed, r->failed, in->nunfit);
    put(f, r->first_fail, ",");
    put(f, pack_at(in, r->alloc, 1.0), ",");
    put(f, r->alloc[in->npods - 1], ",");
    put(f, pack_at(in, r->frag, 0.5), ",");
    put(f, pack_at(in, r->frag, 0.8), ",");
    put(f, pack_at(in, r->frag, 1.0), ",");
    put(f, frag_mean(in, r), "\n");
}

static int write_summary(const char *dir, const struct pack_input *in,
                         const struct pack_result *r, size_t nr)
{
    struct cli_atomic a;
    if (cli_atomic_open(&a, dir, "pack_summary.csv"))
        return -1;
    fputs(SUMMARY_HEADER, a.f);
    for (size_t i = 0; i < nr; i++)
        summary_row(a.f, in, &r[i]);
    return cli_atomic_commit(&a);
}

/* What summary.json holds. */
static cJSON *summary_root(const struct pack_input *in,
                           const struct pack_result *r, size_t nr)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "pods", (double)in->npods);
    cJSON_AddNumberToObject(root, "cluster_gpus", in->cluster->total_gpus);
    cJSON_AddNumberToObject(root, "workload_types", (double)in->w->n);
    cJSON_AddNumberToObject(root, "pods_never_fit", (double)in->nunfit);
    cJSON *all = cJSON_AddObjectToObject(root, "placements");
    for (size_t i = 0; i < nr; i++) {
        cJSON *o = cJSON_AddObjectToObject(all, pol_share_rule_name(r[i].rule));
        cJSON_AddNumberToObject(o, "placed", (double)r[i].placed);
        cJSON_AddNumberToObject(o, "failed", (double)r[i].failed);
        cli_json_number(o, "first_failure_at", r[i].first_fail);
        cli_json_number(o, "gpu_utilization", r[i].alloc[in->npods - 1]);
        cli_json_number(o, "allocation_at_100", pack_at(in, r[i].alloc, 1));
        cli_json_number(o, "frag_rate_final", r[i].frag[in->npods - 1]);
        cli_json_number(o, "frag_rate_mean", frag_mean(in, &r[i]));
    }
    return root;
}

/* One chart of SERIES (alloc or frag of each result) against arrived. */
static int chart(const char *dir, const char *name, const char *ylabel,
                 const struct pack_input *in, const struct pack_result *r,
                 size_t nr, int frag)
{
    struct plot_series s[POL_SHARE_COUNT];
    struct plot_chart c = {.dir = dir,
                           .name = name,
                           .ylabel = ylabel,
                           .xlabel = "GPUs asked by arrived pods / cluster "
                                     "GPUs"};
    c.title = frag ? "Fragmentation as the cluster fills (FGD, ATC'23)"
                   : "GPU allocated as the cluster fills";
    for (size_t i = 0; i < nr; i++)
        s[i] = (struct plot_series){pol_share_rule_name(r[i].rule),
                                    frag ? r[i].frag : r[i].alloc, in->npods};
    return cli_chart_check(plot_steps(&c, in->arrived, in->npods, s, nr),
                           name);
}

static void print_table(const struct pack_input *in,
                        const struct pack_result *r, size_t nr)
{
    printf("%-12s %7s %7s %10s %10s %10s %10s %10s\n", "placement", "placed",
           "failed", "1st fail", "alloc@100", "alloc end", "frag@80",
           "frag mean");
    for (size_t i = 0; i < nr; i++)
        printf("%-12s %7zu %7zu %10.4f %10.4f %10.4f %10.4f %10.4f\n",
               pol_share_rule_name(r[i].rule), r[i].placed, r[i].failed,
               r[i].first_fail, pack_at(in, r[i].alloc, 1.0),
               r[i].alloc[in->npods - 1], pack_at(in, r[i].frag, 0.8),
               frag_mean(in, &r[i]));
}

int pack_write(const char *dir, const struct pack_input *in,
               const struct pack_result *r, size_t nr, int plots, int quiet,
               int json)
{
    cJSON *root = summary_root(in, r, nr);
    cJSON *copy = json ? cJSON_Duplicate(root, 1) : NULL; /* for stdout */
    if (cli_mkdirs(dir) || write_curves(dir, in, r, nr) ||
        write_summary(dir, in, r, nr) || (json && !copy)) {
        cJSON_Delete(root);
        cJSON_Delete(copy);
        cli_error("%s: cannot write the results", dir);
        return CLI_FAILURE;
    }
    if (cli_write_json_file(dir, "summary.json", root)) { /* said why */
        cJSON_Delete(copy);
        return CLI_FAILURE;
    }
    if (plots && (chart(dir, "allocation", "GPU allocated / cluster GPUs", in,
                        r, nr, 0) ||
                  chart(dir, "fragmentation", "fragmented GPU / cluster GPUs",
                        in, r, nr, 1))) {
        cJSON_Delete(copy);
        return CLI_FAILURE;
    }
    if (json && cli_write_json(stdout, copy) != 0) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (!quiet && !json)
        print_table(in, r, nr);
    return CLI_OK;
}
