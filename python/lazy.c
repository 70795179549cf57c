/* lazy.c -- hetsim_python.h's loader in the hetsim program: the embedding
 * (hetsim_embed.so, embed.h) is opened at the first Python policy, and the
 * call handed over; a command without one never loads CPython. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The folder of the running program into DIR; 0 or -1 (errno set). */
static int program_dir(char *dir, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", dir, cap - 1);
    if (n <= 0)
        return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash) {
        errno = ENOENT;
        return -1;
    }
    *slash = '\0';
    return 0;
}

/* The module's path into PATH: beside the program (build/hetsim), else one
 * folder up (the test programs of build/tests/). 0 or -1 with embed_why. */
static int find_module(char *path, size_t cap)
{
    char dir[PATH_MAX];
    if (program_dir(dir, sizeof dir)) {
        snprintf(embed_why, sizeof embed_why,
                 "cannot find the hetsim program's folder "
                 "(/proc/self/exe): %s",
                 strerror(errno));
        return -1;
    }
    static const char *const places[] = {"", "/.."};
    for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
        snprintf(path, cap, "%s%s/%s", dir, places[i], HPY_EMBED_FILE);
        if (access(path, F_OK) == 0)
            return 0;
    }
    snprintf(embed_why, sizeof embed_why,
             "Python policies need %s, built with the hetsim program and "
             "kept beside it: not found in %s",
             HPY_EMBED_FILE, dir);
    return -1;
}

static void embed_load(void)
{
    char path[PATH_MAX];
    if (find_module(path, sizeof path))
        return;
    /* RTLD_GLOBAL: CPython's own extension modules (lib-dynload/) are not
     * linked against libpython; they find its symbols in the global scope,
     * as they would in a program that links it. */
    void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(embed_why, sizeof embed_why, "cannot load %s: %s", path,
                 e ? e : "unknown error");
        return;
    }
    void *sym = dlsym(lib, HPY_EMBED_ENTRY);
    const struct hpy_embed *(*entry)(const struct hpy_embed_host *) = NULL;
    if (sym)
        memcpy(&entry, &sym, sizeof sym);
    const struct hpy_embed *e = entry ? entry(&host) : NULL;
    if (!e || e->abi != HPY_EMBED_ABI || e->size != sizeof *e) {
        snprintf(embed_why, sizeof embed_why,
                 "%s is not the Python embedding of this hetsim program "
                 "(rebuild both)",
                 path);
        return; /* left open: it may have started threads of its own */
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
