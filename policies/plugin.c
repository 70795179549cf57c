/* plugin.c -- policies from shared objects: `--policy ./libmine.so`.
 *
 * pol_load_plugin() dlopens the file, checks the table its
 * hetsim_policy_plugin() returns (hetsim/policy_abi.h), and wraps it in a
 * struct pol_ops like any built-in policy. The wrapper's state (struct
 * adapter) holds the plugin's own state and a placer for the api's place();
 * the plugin sees the engine only through the api table (plugin_api.c),
 * behind the opaque struct hetsim_sim, here the engine plus that placer.
 *
 * The ops tables live in a few static slots, one per loaded file, and stay
 * valid (the file stays loaded) for the life of the process: pol_ops has no
 * unload, and a run binds its policy until the end. pol_config does not say
 * which ops table create() was called for, so each slot has its own create
 * trampoline. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "plugin_internal.h"

#define PLUGIN_SLOTS 16
#define PLUGIN_MAX_PARAMS 32

struct slot {
    const void *key; /* the dlopen handle or the registered table; NULL =
                        free slot */
    void *handle;    /* from dlopen; NULL for a registered table */
    const struct hetsim_policy_plugin *plugin;
    struct pol_ops ops;
    struct pol_param params[PLUGIN_MAX_PARAMS + 1];
};

static struct slot slots[PLUGIN_SLOTS];

/* ---- The adapter: a plugin as a struct pol_ops ------------------------- */

static void adapter_free(struct adapter *a)
{
    pol_placer_destroy(a->view.placer);
    free(a->out_segs);
    free(a->in_segs);
    free(a);
}

static int adapter_create(const struct slot *sl, const struct pol_config *cfg,
                          void **state)
{
    const struct hetsim_policy_plugin *pi = sl->plugin;
    struct adapter *a = calloc(1, sizeof *a);
    if (!a)
        return SIM_ENOMEM;
    a->plugin = sl->plugin;
    a->placed_job = -1;
    a->view.placer =
        pol_placer_for(cfg);
    if (!a->view.placer) {
        adapter_free(a);
        return SIM_ENOMEM;
    }
    if (pi->create) {
        static const char *const backfills[] = {"none", "easy",
                                                "conservative", "greedy"};
        struct hetsim_policy_config pc = {
            &pol_plugin_api, cfg->seed, cfg->has_estimates,
            pol_placement_name(cfg->placement), backfills[cfg->backfill],
            cfg->keys, cfg->values, cfg->nopts, cfg->error, cfg->error_cap};
        if (cfg->error && cfg->error_cap)
            cfg->error[0] = '\0';
        int rc = pi->create(&pc, &a->ctx);
        if (rc) {
            adapter_free(a);
            if (rc == HETSIM_ENOMEM)
                return SIM_ENOMEM;
            if (cfg->error && cfg->error_cap && cfg->error[0])
                return SIM_EINVAL;
            return pol_refuse(cfg, "policy plugin %s: create() failed "
                              "(code %d)", pi->name, rc);
        }
    }
    *state = a;
    return 0;
}

static void adapter_destroy(void *state)
{
    struct adapter *a = state;
    if (!a)
        return;
    if (a->plugin->destroy)
        a->plugin->destroy(a->ctx);
    adapter_free(a);
}

static void adapter_arrival(void *state, struct sim *s, uint32_t job)
{
    struct adapter *a = state;
    a->view.sim = s;
    a->plugin->on_arrival(a->ctx, &pol_plugin_api, &a->view, job);
}

static void adapter_finish(void *state, struct sim *s, uint32_t job)
{
    struct adapter *a = state;
    a->view.sim = s;
    a->plugin->on_finish(a->ctx, &pol_plugin_api, &a->view, job);
}

static int adapter_schedule(void *state, struct sim *s)
{
    struct adapter *a = state;
    a->view.sim = s;
    int rc = a->plugin->schedule(a->ctx, &pol_plugin_api, &a->view);
    return rc < 0 ? rc : 0;
}

#define CREATE_FOR_SLOT(i)                                                 \
    static int create_##i(const struct pol_config *cfg, void **state)      \
    {                                                                      \
        return adapter_create(&slots[i], cfg, state);                      \
    }
CREATE_FOR_SLOT(0)
CREATE_FOR_SLOT(1)
CREATE_FOR_SLOT(2)
CREATE_FOR_SLOT(3)
CREATE_FOR_SLOT(4)
CREATE_FOR_SLOT(5)
CREATE_FOR_SLOT(6)
CREATE_FOR_SLOT(7)
CREATE_FOR_SLOT(8)
CREATE_FOR_SLOT(9)
CREATE_FOR_SLOT(10)
CREATE_FOR_SLOT(11)
CREATE_FOR_SLOT(12)
CREATE_FOR_SLOT(13)
CREATE_FOR_SLOT(14)
CREATE_FOR_SLOT(15)

static int (*const create_for[PLUGIN_SLOTS])(const struct pol_config *,
                                             void **) = {
    create_0,  create_1,  create_2,  create_3,  create_4,  create_5,
    create_6,  create_7,  create_8,  create_9,  create_10, create_11,
    create_12, create_13, create_14, create_15,
};

/* ---- Loading ------------------------------------------------------------- */

static int say(char *why, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(char *why, size_t cap, int code, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Fills slot I for the table PI of loaded file HANDLE. */
static void fill_slot(size_t i, void *handle,
                      const struct hetsim_policy_plugin *pi)
{
    struct slot *sl = &slots[i];
    sl->key = handle ? (const void *)handle : (const void *)pi;
    sl->handle = handle;
    sl->plugin = pi;
    size_t n = 0;
    for (; pi->params && pi->params[n].name; n++)
        sl->params[n] = (struct pol_param){pi->params[n].name,
                                           pi->params[n].def,
                                           pi->params[n].help};
    sl->params[n] = (struct pol_param){NULL, NULL, NULL};
    sl->ops = (struct pol_ops){
        .name = pi->name,
        .description = pi->description ? pi->description : "",
        .params = sl->params,
        .needs_estimates = pi->needs_estimates,
        .preemptive = pi->preemptive,
        .create = create_for[i],
        .destroy = adapter_destroy,
        .on_arrival = pi->on_arrival ? adapter_arrival : NULL,
        .on_finish = pi->on_finish ? adapter_finish : NULL,
        .schedule = adapter_schedule,
    };
}

/* What is wrong with the table PI, or NULL. */
static const char *table_fault(const struct hetsim_policy_plugin *pi)
{
    if (!pi->name || !pi->name[0])
        return "its table has no name";
    if (!pi->schedule)
        return "its table has no schedule function";
    size_t n = 0;
    while (pi->params && pi->params[n].name)
        n++;
    if (n > PLUGIN_MAX_PARAMS)
        return "it has more than 32 parameters";
    return NULL;
}

/* Takes the plugin table out of loaded file HANDLE (PATH in messages). */
static int read_table(void *handle, const char *path,
                      const struct hetsim_policy_plugin **out, char *why,
                      size_t cap)
{
    void *sym = dlsym(handle, HETSIM_POLICY_PLUGIN_SYMBOL);
    if (!sym)
        return say(why, cap, SIM_EPARSE,
                   "%s: not a hetsim policy plugin: it exports no "
                   "function %s() (see <hetsim/policy_abi.h>)",
                   path, HETSIM_POLICY_PLUGIN_SYMBOL);
    const struct hetsim_policy_plugin *(*get)(void);
    memcpy(&get, &sym, sizeof get); /* ISO C has no object-to-function cast */
    const struct hetsim_policy_plugin *pi = get();
    if (!pi)
        return say(why, cap, SIM_EPARSE, "%s: %s() returned NULL", path,
                   HETSIM_POLICY_PLUGIN_SYMBOL);
    if (pi->abi_version != HETSIM_POLICY_ABI_VERSION)
        return say(why, cap, SIM_EPARSE,
                   "%s: policy plugin built for ABI version %u, but this "
                   "hetsim loads ABI version %d: rebuild it against this "
                   "hetsim's <hetsim/policy_abi.h>",
                   path, pi->abi_version, HETSIM_POLICY_ABI_VERSION);
    const char *fault = table_fault(pi);
    if (fault)
        return say(why, cap, SIM_EPARSE, "%s: bad policy plugin: %s", path,
                   fault);
    *out = pi;
    return 0;
}

/* dlopen()s PATH; a bare file name is taken in the current folder, not
 * searched for on the library path. */
static void *open_file(const char *path, char *why, size_t cap)
{
    char local[4096];
    const char *p = path;
    if (!strchr(path, '/')) {
        snprintf(local, sizeof local, "./%s", path);
        p = local;
    }
    void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        size_t len = strlen(p);
        if (e && strncmp(e, p, len) == 0 && strncmp(e + len, ": ", 2) == 0)
            e += len + 2; /* dlerror() names the file too */
        say(why, cap, 0, "%s: not a loadable shared object: %s", path,
            e ? e : "dlopen failed");
    }
    return h;
}

int pol_load_plugin(const char *path, const struct pol_ops **out, char *why,
                    size_t cap)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return say(why, cap, SIM_EIO, "%s: cannot open policy plugin: %s",
                   path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return say(why, cap, SIM_EIO, "%s: policy plugin is not a file",
                   path);
    void *h = open_file(path, why, cap);
    if (!h)
        return SIM_EPARSE;
    const struct hetsim_policy_plugin *pi = NULL;
    int rc = read_table(h, path, &pi, why, cap);
    size_t free_slot = PLUGIN_SLOTS;
    for (size_t i = 0; rc == 0 && i < PLUGIN_SLOTS; i++) {
        if (slots[i].key == h) { /* loaded before: the same table */
            dlclose(h);          /* drops the count this call added */
            *out = &slots[i].ops;
            return 0;
        }
        if (!slots[i].key && free_slot == PLUGIN_SLOTS)
            free_slot = i;
    }
    if (rc == 0 && free_slot == PLUGIN_SLOTS)
        rc = say(why, cap, SIM_EINVAL, "%s: too many policy plugins loaded "
                 "(at most %d)", path, PLUGIN_SLOTS);
    if (rc) {
        dlclose(h);
        return rc;
    }
    fill_slot(free_slot, h, pi);
    *out = &slots[free_slot].ops;
    return 0;
}

int pol_plugin_register(const struct hetsim_policy_plugin *pi,
                        const struct pol_ops **out, char *why, size_t cap)
{
    *out = NULL;
    if (pi->abi_version != HETSIM_POLICY_ABI_VERSION)
        return say(why, cap, SIM_EINVAL, "%s: policy table of ABI version "
                   "%u, not %d", pi->name ? pi->name : "(unnamed)",
                   pi->abi_version, HETSIM_POLICY_ABI_VERSION);
    const char *fault = table_fault(pi);
    if (fault)
        return say(why, cap, SIM_EINVAL, "%s: bad policy: %s",
                   pi->name ? pi->name : "(unnamed)", fault);
    size_t free_slot = PLUGIN_SLOTS;
    for (size_t i = 0; i < PLUGIN_SLOTS; i++) {
        if (slots[i].key == pi) { /* registered before: refill */
            free_slot = i;
            break;
        }
        if (!slots[i].key && free_slot == PLUGIN_SLOTS)
            free_slot = i;
    }
    if (free_slot == PLUGIN_SLOTS)
        return say(why, cap, SIM_EINVAL, "%s: too many policy plugins "
                   "loaded (at most %d)", pi->name, PLUGIN_SLOTS);
    fill_slot(free_slot, NULL, pi);
    *out = &slots[free_slot].ops;
    return 0;
}

int pol_plugin_fail(struct hetsim_sim *view, const char *why)
{
    return sim_fail(view->sim, why);
}

void *pol_open_module(const char *file, const char *entry, const char *needs,
                      const char *what, char *path, size_t path_cap, char *why,
                      size_t cap)
{
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) {
        snprintf(why, cap,
                 "cannot find the hetsim program's folder "
                 "(/proc/self/exe): %s",
                 strerror(errno));
        return NULL;
    }
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) /* always: the kernel gives an absolute path */
        *slash = '\0';
    /* beside the program (build/hetsim), else one folder up (the test
     * programs of build/tests/) */
    static const char *const places[] = {"", "/.."};
    size_t i = 0;
    for (; i < sizeof places / sizeof *places; i++) {
        snprintf(path, path_cap, "%s%s/%s", dir, places[i], file);
        if (access(path, F_OK) == 0)
            break;
    }
    if (i == sizeof places / sizeof *places) {
        snprintf(why, cap,
                 "%s %s, built with the hetsim program and kept beside it: "
                 "not found in %s",
                 needs, file, dir);
        return NULL;
    }
    /* RTLD_GLOBAL: the libraries such a module links (CPython, OpenMPI)
     * load plugins of their own that take their symbols from the global
     * scope, as in a program that links them. */
    void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, cap, "cannot load %s: %s", path, e ? e : "unknown error");
        return NULL;
    }
    void *sym = dlsym(lib, entry);
    if (!sym)
        snprintf(why, cap,
                 "%s is not %s of this hetsim program (rebuild "
                 "both)",
                 path, what);
    return sym; /* the module stays open: it may have started threads */
}
