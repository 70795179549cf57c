/* plugin_internal.h -- shared by plugin.c and plugin_api.c only: what a
 * plugin's `struct hetsim_sim *` is, and the api table handed to plugins. */
#ifndef HETSIM_PLUGIN_INTERNAL_H
#define HETSIM_PLUGIN_INTERNAL_H

#include "hetsim/policy_abi.h"
#include "policy.h"

/* What a plugin's `struct hetsim_sim *` points at. */
struct hetsim_sim {
    struct sim *sim;           /* set before each hook call */
    struct pol_placer *placer; /* the user's --placement */
};

/* A plugin as hetsim runs it: the state behind its struct pol_ops. */
struct adapter {
    struct hetsim_sim view; /* first: api functions get back from it */
    const struct hetsim_policy_plugin *plugin;
    void *ctx;                   /* the plugin's state */
    struct hetsim_seg *out_segs; /* (out_cap) the last place() answer */
    size_t out_cap;
    struct sim_seg *in_segs;     /* (in_cap) a placement given to start() */
    size_t in_cap;
    /* With GPU sharing: the GPUs the last place() chose, for the start()
     * of that job on that node (the ABI's placement names no GPU). */
    struct share_alloc placed;
    int64_t placed_job; /* -1: none */
};

/* The functions hetsim offers plugins (plugin_api.c). */
extern const struct hetsim_policy_api pol_plugin_api;

#endif
