/* abi_fixture.c -- not an example: shared objects that hetsim must refuse,
 * for tests/policies/test_plugin.c. Built twice:
 *   FIXTURE_WRONG_ABI defined: a well-formed plugin for ABI version
 *     HETSIM_POLICY_ABI_VERSION + 1 (libwrong_abi_plugin.so);
 *   not defined: a shared object that exports no hetsim_policy_plugin()
 *     (libnot_a_plugin.so). */
#include <hetsim/policy_abi.h>

#ifdef FIXTURE_WRONG_ABI
static int never_schedule(void *ctx, const struct hetsim_policy_api *api,
                          struct hetsim_sim *s)
{
    (void)ctx;
    (void)api;
    (void)s;
    return HETSIM_OK;
}

static const struct hetsim_policy_plugin future = {
    .abi_version = HETSIM_POLICY_ABI_VERSION + 1,
    .name = "from_the_future",
    .description = "built for the next ABI version",
    .schedule = never_schedule,
};

const struct hetsim_policy_plugin *hetsim_policy_plugin(void)
{
    return &future;
}
#else
HETSIM_PLUGIN_EXPORT int hetsim_not_a_policy(void);
HETSIM_PLUGIN_EXPORT int hetsim_not_a_policy(void) { return 42; }
#endif
