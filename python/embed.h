/* embed.h -- between the hetsim program and its Python embedding, a module
 * of its own (hetsim_embed.so, beside the program) that links libpython.
 * The program opens it (dlopen) at the first Python policy (lazy.c), so
 * that a command without one does not load CPython (docs/performance.md,
 * "Start-up"). The module exports one function, hpy_embed_open; what it
 * needs of the program comes in a table, so the program exports nothing.
 * Not used by the extension module (`import hetsim`), which links the
 * embedding's objects directly. */
#ifndef HETSIM_HPY_EMBED_H
#define HETSIM_HPY_EMBED_H

#include <stddef.h>

#include "policy.h"

#define HPY_EMBED_FILE "hetsim_embed.so"
#define HPY_EMBED_ENTRY "hpy_embed_open"
#define HPY_EMBED_ABI 1 /* bump on any change to the structs below */

/* What the module calls in the program: policy.h's plugin functions. */
struct hpy_embed_host {
    int abi;     /* HPY_EMBED_ABI */
    size_t size; /* sizeof(struct hpy_embed_host) */
    int (*plugin_register)(const struct hetsim_policy_plugin *pi,
                           const struct pol_ops **out, char *why, size_t cap);
    int (*plugin_fail)(struct hetsim_sim *view, const char *why);
};

/* What the program calls in the module: hetsim_python.h's loader. */
struct hpy_embed {
    int abi;     /* HPY_EMBED_ABI */
    size_t size; /* sizeof(struct hpy_embed) */
    int (*load_policy)(const char *name, const struct pol_ops **out, char *why,
                       size_t cap);
};

/* The module's entry: keeps HOST (borrowed, alive for the process) and
 * returns the module's table, or NULL when HOST's abi or size differ from
 * the module's (a module of another build). */
const struct hpy_embed *hpy_embed_open(const struct hpy_embed_host *host);

#endif
