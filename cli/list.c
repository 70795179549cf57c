/* list.c -- `hetsim clusters` and `hetsim policies`. */
#include <string.h>

#include "cli.h"
#include "policy.h"

static int wants_help(int argc, char **argv, const char *usage)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 1;
        }
    }
    return 0;
}

int cli_clusters(int argc, char **argv)
{
    if (wants_help(argc, argv,
                   "Usage: hetsim clusters\nLists the built-in clusters "
                   "that --cluster NAME accepts, with their GPU types.\n"
                   "Write your own as JSON (docs/formats.md).\n\n"
                   "Example:\n  hetsim clusters\n"
                   "  hetsim run --trace T.csv --cluster mixed-modern\n"))
        return CLI_OK;
    if (argc > 1)
        return cli_usage_error("hetsim clusters", "unexpected argument '%s'",
                               argv[1]);
    for (size_t i = 0; cluster_preset_name(i); i++) {
        struct cluster *c;
        if (cluster_preset(cluster_preset_name(i), &c) != 0) {
            cli_error("out of memory");
            return CLI_FAILURE;
        }
        printf("%-14s %s\n", c->name, cluster_preset_description(i));
        for (int32_t t = 0; t < c->ntypes; t++) {
            const struct gpu_type *g = &c->types[t];
            printf("%-14s   %-6s %4d GPUs  %6.0f MB  speed %.3f%s\n", "",
                   g->name, g->gpus, g->memory_mb, g->speed,
                   t == c->reference ? " (reference)" : "");
        }
        cluster_destroy(c);
    }
    return CLI_OK;
}

int cli_policies(int argc, char **argv)
{
    if (wants_help(
            argc, argv,
            "Usage: hetsim policies [--verbose]\nLists the scheduling "
            "policies that --policy NAME accepts;\n--verbose adds "
            "each one's parameters (--policy-opt KEY=VALUE) and\n"
            "defaults, and the placements and backfill modes.\n\n"
            "Example:\n  hetsim policies --verbose\n"
            "  hetsim run --trace T.csv --cluster gavel-108 --policy las "
            "--policy-opt quantum=30\n"))
        return CLI_OK;
    int verbose = argc == 2 && (strcmp(argv[1], "--verbose") == 0 ||
                                strcmp(argv[1], "-v") == 0);
    static const char *const names[] = {"--verbose"};
    char hint[128];
    if (argc > 1 && !verbose)
        cli_did_you_mean(hint, sizeof hint, argv[1], names, 1);
    if (argc > 1 && !verbose)
        return cli_usage_error("hetsim policies", "unexpected argument "
                               "'%s'%s", argv[1], hint);
    for (size_t i = 0; pol_at(i); i++) {
        const struct pol_ops *p = pol_at(i);
        if (strlen(p->name) > 14) /* gavel:NAME: the text on its own line */
            printf("%s\n%-14s %s%s\n", p->name, "", p->description,
                   p->needs_estimates ? " [needs --estimates]" : "");
        else
            printf("%-14s %s%s\n", p->name, p->description,
                   p->needs_estimates ? " [needs --estimates]" : "");
        for (size_t k = 0; verbose && p->params && p->params[k].name; k++)
            printf("%-16s %s=%s  %s\n", "", p->params[k].name, p->params[k].def,
                   p->params[k].help);
    }
    if (verbose)
        printf("\nplacements (--placement): fastest (default), consolidate, "
               "first-fit, best-fit, random;\n  then ,mem-aware[:MARGIN] keeps "
               "jobs off GPU types with less memory than\n  their estimate "
               "times 1 + MARGIN (e.g. fastest,mem-aware:0.1)\n"
               "backfill (--backfill, "
               "non-preemptive policies): none (default), easy, "
               "conservative\n");
    return CLI_OK;
}
