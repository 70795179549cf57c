/* inputs.c -- reading what a run is made of (moved from cli/run.c and
 * cli/pack.c): the GPU types a job may use, and the demands and hosts of
 * GPU sharing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pack_internal.h"

/* The mask of TYPES, or -1 with the first unknown type's name in NAME
 * (CAP bytes). */
static int64_t types_mask(const struct cluster *c, const char *types,
                          char *name, size_t cap)
{
    if (!types[0])
        return 0;
    uint32_t mask = 0;
    const char *p = types;
    for (;;) {
        size_t len = strcspn(p, "|");
        snprintf(name, cap, "%.*s", (int)(len < 63 ? len : 63), p);
        int32_t t = cluster_find_type(c, name);
        if (t < 0)
            return -1;
        mask |= 1u << t;
        if (!p[len])
            return mask;
        p += len + 1;
    }
}

int64_t cli_types_mask(const struct cluster *c, const char *types)
{
    char name[64];
    return types_mask(c, types, name, sizeof name);
}

int64_t cli_allowed_types(const struct cluster *c, const char *types,
                          const char *src, long line)
{
    char name[64];
    int64_t mask = types_mask(c, types, name, sizeof name);
    if (mask < 0) {
        char text[256];
        snprintf(text, sizeof text,
                 "gpu_type \"%s\" is not a GPU type of cluster %s", name,
                 c->name);
        cli_error_at(src, line, 0, text);
    }
    return mask;
}

int cli_share_hosts(const char *spec, const struct cluster *c, int64_t **cpu,
                    double **mem)
{
    char path[4096];
    struct trace_nodes *nodes = NULL;
    struct trace_error err = {0};
    int32_t k = 0, nn = c->nnodes;
    snprintf(path, sizeof path, "%s", spec + strlen("alibaba2023:"));
    path[strcspn(path, ":")] = '\0';
    int rc = trace_read_alibaba_nodes(path, &nodes, &err);
    if (rc)
        return cli_trace_failure(rc, &err, path);
    *cpu = malloc((size_t)(nn > 0 ? nn : 1) * sizeof **cpu);
    *mem = malloc((size_t)(nn > 0 ? nn : 1) * sizeof **mem);
    if (!*cpu || !*mem) {
        trace_nodes_destroy(nodes);
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    for (size_t i = 0; i < nodes->n && k < nn; i++) {
        if (nodes->nodes[i].gpus < 1 || !nodes->nodes[i].model[0])
            continue; /* as cli_alibaba_cluster skips it */
        (*cpu)[k] = nodes->nodes[i].cpu_milli;
        (*mem)[k++] = nodes->nodes[i].memory_mib;
    }
    trace_nodes_destroy(nodes);
    if (k != nn) { /* the file changed between the two reads */
        cli_error("%s: GPU nodes do not match the cluster made of it", path);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

int cli_share_demand(const struct cluster *c, const struct trace *t,
                     const char *src, size_t j, struct share_demand *d)
{
    const struct trace_job *tj = &t->jobs[j];
    int64_t allowed =
        cli_allowed_types(c, trace_str(t, tj->gpu_types), src, (long)tj->line);
    if (allowed < 0)
        return CLI_BAD_INPUT;
    *d = (struct share_demand){
        tj->cpu_milli > 0 ? tj->cpu_milli : 0,
        isnan(tj->host_mem_mb) ? 0 : tj->host_mem_mb, tj->num_gpus,
        tj->gpu_milli > 0 ? tj->gpu_milli : SHARE_MILLI, (uint32_t)allowed};
    if (share_demand_valid(d))
        return CLI_OK;
    cli_error_at(src, (long)tj->line, 0,
                 tj->num_gpus > SHARE_MAX_NODE_GPUS
                     ? "num_gpus: a pod must fit one node (at most 64 GPUs)"
                     : "gpu_milli below 1000 needs num_gpus 1");
    return CLI_BAD_INPUT;
}

