/* lazy.c -- hetsim_python.h's loader in the hetsim program: the embedding
 * (hetsim_embed.so, embed.h) is opened at the first Python policy, and the
 * call handed over; a command without one never loads CPython. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "embed.h"
#include "hetsim_python.h"

static const struct hpy_embed_host host = {
    .abi = HPY_EMBED_ABI,
    .size = sizeof host,
    .plugin_register = pol_plugin_register,
    .plugin_fail = pol_plugin_fail,
};

static pthread_once_t embed_once = PTHREAD_ONCE_INIT;
static const struct hpy_embed *embed;
static char embed_why[PATH_MAX + 256]; /* why it is missing */

static void embed_load(void)
{
    char path[PATH_MAX];
    void *sym = pol_open_module(HPY_EMBED_FILE, HPY_EMBED_ENTRY,
                                "Python policies need", "the Python embedding",
                                path, sizeof path, embed_why, sizeof embed_why);
    if (!sym)
        return;
    const struct hpy_embed *(*entry)(const struct hpy_embed_host *);
    memcpy(&entry, &sym, sizeof sym);
    const struct hpy_embed *e = entry(&host);
    if (!e || e->abi != HPY_EMBED_ABI || e->size != sizeof *e) {
        snprintf(embed_why, sizeof embed_why,
                 "%s is not the Python embedding of this hetsim program "
                 "(rebuild both)",
                 path);
        return;
    }
    embed = e;
}

int hpy_load_policy(const char *name, const struct pol_ops **out, char *why,
                    size_t cap)
{
    *out = NULL;
    pthread_once(&embed_once, embed_load);
    if (!embed) {
        snprintf(why, cap, "%s: %s", name, embed_why);
        return SIM_EIO;
    }
    return embed->load_policy(name, out, why, cap);
}
