/* hostile_plugin.c -- not an example: a plugin that misuses the API on
 * purpose, for tests/cli/test_safety.c. --policy-opt mode=M picks how:
 *   wake_now   wake_at(now) at every schedule call
 *   cycle      starts the head job, preempts it and asks to be called
 *              again now, at every call
 *   null_seg   start() with nseg = 1 and seg = NULL
 *   big_job    start() of job 0xFFFFFFF0
 *   bad_type   start() on GPU type 99
 *   read_job   job_num_gpus(0xFFFFFFF0)
 *   read_type  gpu_type_name(99)
 * hetsim must stop each run with an error naming the policy, never crash,
 * abort or hang. */
#include <stdlib.h>
#include <string.h>

#include <hetsim/policy_abi.h>

static const struct hetsim_policy_param params[] = {
    {"mode", "wake_now", "how to misuse the API (see the source)"},
    {NULL, NULL, NULL},
};

static int hostile_create(const struct hetsim_policy_config *cfg, void **ctx)
{
    static const char *const modes[] = {"wake_now", "cycle",    "null_seg",
                                        "big_job",  "bad_type", "read_job",
                                        "read_type"};
    long mode = 0;
    for (size_t i = 0; i < cfg->nopts; i++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
            if (strcmp(cfg->keys[i], "mode") == 0 &&
                strcmp(cfg->values[i], modes[m]) == 0)
                mode = (long)m;
    *ctx = (void *)mode;
    return HETSIM_OK;
}

static int hostile_schedule(void *ctx, const struct hetsim_policy_api *api,
                            struct hetsim_sim *s)
{
    long mode = (long)ctx;
    int32_t head = api->queue_head(s);
    struct hetsim_placement p;
    switch (mode) {
    case 0: return api->wake_at(s, api->now(s));
    case 1:
        if (head < 0 || api->place(s, (uint32_t)head, &p) != HETSIM_OK)
            return HETSIM_OK;
        if (api->start(s, (uint32_t)head, &p) != HETSIM_OK)
            return HETSIM_OK;
        api->preempt(s, (uint32_t)head);
        return api->wake_at(s, api->now(s)); /* and again, for ever */
    case 2:
        p = (struct hetsim_placement){0, 1, NULL};
        return head < 0 ? HETSIM_OK : api->start(s, (uint32_t)head, &p);
    case 3:
    case 4: {
        if (head < 0 || api->place(s, (uint32_t)head, &p) != HETSIM_OK)
            return HETSIM_OK;
        if (mode == 4)
            p.gpu_type = 99;
        return api->start(s, mode == 3 ? 0xFFFFFFF0u : (uint32_t)head, &p);
    }
    case 5: return api->job_num_gpus(s, 0xFFFFFFF0u) < 0 ? HETSIM_OK : 1;
    default: return api->gpu_type_name(s, 99) ? 1 : HETSIM_OK;
    }
}

static const struct hetsim_policy_plugin hostile = {
    .abi_version = HETSIM_POLICY_ABI_VERSION,
    .name = "hostile",
    .description = "misuses the plugin API on purpose (tests only)",
    .params = params,
    .preemptive = 1,
    .create = hostile_create,
    .schedule = hostile_schedule,
};

HETSIM_PLUGIN_EXPORT const struct hetsim_policy_plugin *
hetsim_policy_plugin(void)
{
    return &hostile;
}
