/* fifo_plugin.c -- hetsim's FIFO rule as a policy plugin: the smallest
 * complete plugin, and a check that the plugin ABI schedules exactly as a
 * built-in policy does (tests/policies/test_plugin.c).
 *
 * Jobs start in the order they arrived (submit time, ties in trace order),
 * each on the GPUs that the user's --placement picks; when the job at the
 * head of the queue fits nowhere, nothing behind it starts. This is
 * `--policy fifo` without --backfill.
 *
 * Build (hetsim's CMake does it: build/policies/examples/libfifo_plugin.so):
 *   cc -std=c11 -shared -fPIC -I<prefix>/include fifo_plugin.c \
 *      -o libfifo_plugin.so
 * Run:
 *   hetsim run --policy ./libfifo_plugin.so --trace T --cluster C */
#include <stdio.h>
#include <string.h>

#include <hetsim/policy_abi.h>

/* No state of its own: the engine's wait queue is already in arrival
 * order. create() only refuses what this rule does not do. */
static int fifo_create(const struct hetsim_policy_config *cfg, void **ctx)
{
    if (strcmp(cfg->backfill, "none") != 0) {
        snprintf(cfg->error, cfg->error_cap,
                 "policy fifo_plugin does no backfilling (--backfill %s)",
                 cfg->backfill);
        return HETSIM_EINVAL;
    }
    *ctx = NULL;
    return HETSIM_OK;
}

/* Starts queue heads while they fit. */
static int fifo_schedule(void *ctx, const struct hetsim_policy_api *api,
                         struct hetsim_sim *s)
{
    (void)ctx;
    int32_t job;
    while ((job = api->queue_head(s)) >= 0) {
        struct hetsim_placement p;
        int rc = api->place(s, (uint32_t)job, &p);
        if (rc == HETSIM_NO_ROOM)
            return HETSIM_OK; /* the head waits, and so does the rest */
        if (rc == HETSIM_OK)
            rc = api->start(s, (uint32_t)job, &p);
        if (rc != HETSIM_OK)
            return rc;
    }
    return HETSIM_OK;
}

static const struct hetsim_policy_plugin fifo_plugin = {
    .abi_version = HETSIM_POLICY_ABI_VERSION,
    .name = "fifo_plugin",
    .description = "first come, first served (a plugin); the head of the "
                   "queue blocks the rest",
    .create = fifo_create,
    .schedule = fifo_schedule,
};

const struct hetsim_policy_plugin *hetsim_policy_plugin(void)
{
    return &fifo_plugin;
}
