/* embed.c -- the entry of hetsim_embed.so (embed.h): the embedding's
 * objects call policy.h's plugin functions, which live in the hetsim
 * program; here they are forwarded to the table the program hands over. */
#include "embed.h"

#include "hetsim_python.h"

static const struct hpy_embed_host *host;

static const struct hpy_embed table = {
    .abi = HPY_EMBED_ABI,
    .size = sizeof table,
    .load_policy = hpy_load_policy,
};

const struct hpy_embed *hpy_embed_open(const struct hpy_embed_host *h)
{
    if (!h || h->abi != HPY_EMBED_ABI || h->size != sizeof *h)
        return NULL;
    host = h;
    return &table;
}

int pol_plugin_register(const struct hetsim_policy_plugin *pi,
                        const struct pol_ops **out, char *why, size_t cap)
{
    return host->plugin_register(pi, out, why, cap);
}

int pol_plugin_fail(struct hetsim_sim *view, const char *why)
{
    return host->plugin_fail(view, why);
}
