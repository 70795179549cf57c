/* share_cmd.c -- `hetsim share`, kept as an alias: `hetsim run` with GPU
 * sharing on, FIFO order and every waiting job that fits started
 * (--policy fifo --backfill greedy --gpu-sharing), the pair matrix used
 * for pair speeds only (--throughputs becomes --pairs, so run times stay
 * the trace's durations) and the charts drawn unless --no-plots. It gives
 * the replays of the old sharing loop job for job (docs/sharing.md). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void share_usage(void)
{
    printf("Usage: hetsim share --trace FILE --cluster C --out DIR [OPTIONS]\n"
           "An alias of `hetsim run --gpu-sharing --policy fifo --backfill "
           "greedy`:\njobs asking gpu_milli < 1000 share a GPU; waiting jobs "
           "are offered to the\nplacement in arrival order at every event "
           "(docs/sharing.md).\n\n"
           "  -t, --trace FILE        jobs (Alibaba 2023 pods carry "
           "gpu_milli)\n"
           "  -c, --cluster C         alibaba2023:NODES.csv, a cluster JSON "
           "file or a\n"
           "                          built-in name\n"
           "  -p, --placement RULE    fgd (default), best-fit, dot-product, "
           "first-fit,\n"
           "                          random, util-pack\n"
           "  -o, --out DIR           results folder; created if missing\n"
           "  -T, --throughputs FILE  Gavel's simulation_throughputs.json: "
           "pair speeds\n"
           "  -I, --interference X    speed (0, 1] of an unmeasured pair "
           "(default 0.65)\n"
           "  -U, --util-pack BOUND   one-GPU jobs share a GPU while their "
           "estimated\n"
           "                          utilizations sum to <= BOUND\n"
           "  -s, --seed N            seed of `random` (default 1)\n"
           "      --no-plots          skip the charts\n"
           "  -q, --quiet             print nothing but errors\n"
           "  -f, --format NAME       the trace's format (default: detected)\n"
           "  -h, --help              show this help\n\n"
           "Any other option of `hetsim run` is passed on (e.g. --policy "
           "sjf).\n");
}

/* ARG renamed: share's short and long names to run's. */
static const char *rename_opt(const char *arg)
{
    static const char *const from[] = {"-p", "-T", "--throughputs", "-I",
                                       "-U"};
    static const char *const to[] = {"--placement", "--pairs", "--pairs",
                                     "--interference", "--util-pack"};
    for (size_t i = 0; i < sizeof from / sizeof *from; i++)
        if (strcmp(arg, from[i]) == 0)
            return to[i];
    return arg;
}

int cli_share(int argc, char **argv)
{
    static const char *const head[] = {"run", "--gpu-sharing", "--policy",
                                       "fifo", "--backfill", "greedy"};
    size_t nh = sizeof head / sizeof *head, n = 0;
    int plots = 1;
    char **args = malloc(((size_t)argc + nh + 2) * sizeof *args);
    if (!args) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (size_t i = 0; i < nh; i++)
        args[n++] = (char *)head[i];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            share_usage();
            free(args);
            return CLI_OK;
        }
        if (strcmp(argv[i], "--no-plots") == 0) {
            plots = 0;
            continue;
        }
        if (strncmp(argv[i], "--throughputs=", 14) == 0) {
            args[n++] = (char *)"--pairs";
            args[n++] = argv[i] + 14;
            continue;
        }
        args[n++] = (char *)rename_opt(argv[i]);
    }
    if (plots)
        args[n++] = (char *)"--plots";
    args[n] = NULL;
    int rc = cli_run((int)n, args);
    free(args);
    return rc;
}
