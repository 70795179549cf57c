/* host.c -- a Python class as a policy plugin: each policy file (load.c)
 * or class handed to hetsim.run() gets a slot holding a struct
 * hetsim_policy_plugin whose hooks call the class's methods, registered with
 * pol_plugin_register() so that it runs through the same adapter and api
 * as a C plugin. create() has no argument saying which table it belongs
 * to, so each slot has its own create trampoline (as in plugin.c).
 *
 * Per call the hooks allocate nothing but the job number (an int object
 * beyond 256) and the method's own frame: the methods are looked up once
 * per run and called by vectorcall; `sim` is one object per run. */
#include "hpy_internal.h" /* Python.h first, as it asks */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HPY_SLOTS 8
#define HPY_MAX_PARAMS 32

struct hslot {
    char key[PATH_MAX];  /* realpath of the file, or "python:MOD.CLASS" */
    char file[PATH_MAX]; /* as given, for messages */
    PyObject *cls;
    PyObject *keep;     /* list: str objects behind the table's texts */
    PyObject *defaults; /* dict: parameter -> default value */
    struct hetsim_policy_plugin table;
    struct hetsim_policy_param params[HPY_MAX_PARAMS + 1];
    const struct pol_ops *ops;
};

struct hctx {
    PyObject *policy;
    PyObject *schedule, *on_arrival, *on_finish; /* bound methods */
    hpy_sim *sim;                                /* made at the 1st hook */
    int failed;
    char head[400]; /* why it failed */
};

static struct hslot hslots[HPY_SLOTS];

/* ---- Hooks ----------------------------------------------------------------*/

static void ctx_free(struct hctx *x)
{
    if (!x)
        return;
    Py_XDECREF(x->policy);
    Py_XDECREF(x->schedule);
    Py_XDECREF(x->on_arrival);
    Py_XDECREF(x->on_finish);
    Py_XDECREF(x->sim);
    PyMem_Free(x);
}

static void t_destroy(void *ctx)
{
    ctx_free(ctx);
}

/* The policy raised: tell it, and stop the run. */
static int failed(struct hctx *x, struct hetsim_sim *s)
{
    if (!x->failed) {
        x->failed = 1;
        hpy_report(x->head, sizeof x->head);
    }
    if (x->sim)
        x->sim->s = NULL;
    char why[512];
    snprintf(why, sizeof why, "%s", x->head);
    return pol_plugin_fail(s, why);
}

static int bind(struct hctx *x, const struct hetsim_policy_api *api,
                struct hetsim_sim *s)
{
    if (x->failed)
        return -1;
    if (!x->sim && !(x->sim = hpy_sim_new(api, s)))
        return -1;
    x->sim->api = api;
    x->sim->s = s;
    return 0;
}

/* Calls METHOD(sim, job); 0 or -1 with the exception set. */
static int call_job(struct hctx *x, PyObject *method, uint32_t job)
{
    PyObject *j = PyLong_FromUnsignedLong(job);
    if (!j)
        return -1;
    PyObject *args[3] = {NULL, (PyObject *)x->sim, j};
    PyObject *r = PyObject_Vectorcall(method, args + 1,
                                      2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(j);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static void t_arrival(void *ctx, const struct hetsim_policy_api *api,
                      struct hetsim_sim *s, uint32_t job)
{
    struct hctx *x = ctx;
    if (bind(x, api, s) || call_job(x, x->on_arrival, job)) {
        failed(x, s);
        return;
    }
    x->sim->s = NULL;
}

static void t_finish(void *ctx, const struct hetsim_policy_api *api,
                     struct hetsim_sim *s, uint32_t job)
{
    struct hctx *x = ctx;
    if (bind(x, api, s) || call_job(x, x->on_finish, job)) {
        failed(x, s);
        return;
    }
    x->sim->s = NULL;
}

static int t_schedule(void *ctx, const struct hetsim_policy_api *api,
                      struct hetsim_sim *s)
{
    struct hctx *x = ctx;
    if (bind(x, api, s))
        return failed(x, s);
    PyObject *args[2] = {NULL, (PyObject *)x->sim};
    PyObject *r = PyObject_Vectorcall(x->schedule, args + 1,
                                      1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (!r)
        return failed(x, s);
    Py_DECREF(r);
    x->sim->s = NULL;
    return HETSIM_OK;
}

/* ---- create: the config, the instance, its methods ---------------------- */

/* cfg's options over the defaults, converted to the defaults' types. */
static PyObject *make_opts(const struct hslot *sl,
                           const struct hetsim_policy_config *cfg)
{
    PyObject *opts = PyDict_Copy(sl->defaults);
    PyObject *convert = hpy_helper("convert");
    for (size_t i = 0; opts && i < cfg->nopts; i++) {
        PyObject *def = PyDict_GetItemString(sl->defaults, cfg->keys[i]);
        PyObject *v = def ? PyObject_CallFunction(convert, "Oss", def,
                                                  cfg->keys[i], cfg->values[i])
                          : PyUnicode_FromString(cfg->values[i]);
        if (!v || PyDict_SetItemString(opts, cfg->keys[i], v) < 0)
            Py_CLEAR(opts);
        Py_XDECREF(v);
    }
    return opts;
}

/* Sets cfg->error from the pending exception; HETSIM_EINVAL. */
static int refuse(const struct hslot *sl,
                  const struct hetsim_policy_config *cfg)
{
    PyObject *e = NULL;
    char text[512];
    hpy_error_text(text, sizeof text, &e);
    PyObject *s = e ? PyObject_Str(e) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : text;
    if (cfg->error && cfg->error_cap)
        snprintf(cfg->error, cfg->error_cap, "policy %s: %s", sl->table.name,
                 msg ? msg : text);
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(e);
    return HETSIM_EINVAL;
}

/* The instance: cls(config), or cls() when __init__ takes no config. */
static PyObject *instantiate(PyObject *cls, PyObject *config)
{
    return PyObject_CallFunctionObjArgs(hpy_helper("instantiate"), cls, config,
                                        NULL);
}

static int host_create(struct hslot *sl, const struct hetsim_policy_config *cfg,
                       void **ctx)
{
    struct hctx *x = PyMem_Calloc(1, sizeof *x);
    if (!x)
        return HETSIM_ENOMEM;
    PyObject *opts = make_opts(sl, cfg);
    if (!opts) {
        ctx_free(x);
        return refuse(sl, cfg); /* a --policy-opt of the wrong type */
    }
    PyObject *config = PyObject_CallFunction(
        hpy_helper("config"), "KssiN", (unsigned long long)cfg->seed,
        cfg->placement, cfg->backfill, cfg->has_estimates, opts);
    x->policy = config ? instantiate(sl->cls, config) : NULL;
    Py_XDECREF(config);
    if (x->policy) {
        x->schedule = PyObject_GetAttrString(x->policy, "schedule");
        if (x->schedule && sl->table.on_arrival)
            x->on_arrival = PyObject_GetAttrString(x->policy, "on_arrival");
        if (x->schedule && sl->table.on_finish)
            x->on_finish = PyObject_GetAttrString(x->policy, "on_finish");
    }
    if (!x->schedule || (sl->table.on_arrival && !x->on_arrival) ||
        (sl->table.on_finish && !x->on_finish)) {
        /* __init__ raised: the run fails at its first hook, exit 1 */
        x->failed = 1;
        hpy_report(x->head, sizeof x->head);
    }
    *ctx = x;
    return HETSIM_OK;
}

#define CREATE_FOR_SLOT(i)                                                     \
    static int create_##i(const struct hetsim_policy_config *cfg, void **ctx)  \
    {                                                                          \
        return host_create(&hslots[i], cfg, ctx);                              \
    }
CREATE_FOR_SLOT(0)
CREATE_FOR_SLOT(1)
CREATE_FOR_SLOT(2)
CREATE_FOR_SLOT(3)
CREATE_FOR_SLOT(4)
CREATE_FOR_SLOT(5)
CREATE_FOR_SLOT(6)
CREATE_FOR_SLOT(7)

static int (*const create_for[HPY_SLOTS])(const struct hetsim_policy_config *,
                                          void **) = {
    create_0, create_1, create_2, create_3,
    create_4, create_5, create_6, create_7,
};

/* ---- Slots ----------------------------------------------------------------*/

/* A UTF-8 copy of O's str() kept alive by SL; NULL with an error set. */
static const char *keep_text(struct hslot *sl, PyObject *o)
{
    PyObject *s = PyObject_Str(o);
    if (!s || PyList_Append(sl->keep, s) < 0) {
        Py_XDECREF(s);
        return NULL;
    }
    Py_DECREF(s);
    return PyUnicode_AsUTF8(s);
}

/* Class attribute NAME as a truth value (absent: 0); -1 on error. */
static int class_flag(PyObject *cls, const char *name)
{
    PyObject *v = PyObject_GetAttrString(cls, name);
    if (!v) {
        PyErr_Clear();
        return 0;
    }
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* The `params` class attribute: {name: default} or {name: (default,
 * help)}, into the table's params and SL->defaults. 0 or -1 (error set). */
static int fill_params(struct hslot *sl)
{
    PyObject *p = PyObject_GetAttrString(sl->cls, "params");
    if (!p) {
        PyErr_Clear();
        return 0;
    }
    int rc = -1;
    if (p != Py_None && !PyDict_Check(p)) {
        PyErr_SetString(PyExc_TypeError,
                        "Policy.params must be a dict "
                        "{name: default} or {name: (default, help)}");
        goto out;
    }
    if (p != Py_None && PyDict_GET_SIZE(p) > HPY_MAX_PARAMS) {
        PyErr_Format(PyExc_ValueError, "Policy.params: at most %d",
                     HPY_MAX_PARAMS);
        goto out;
    }
    Py_ssize_t pos = 0, n = 0;
    PyObject *k, *v;
    while (p != Py_None && PyDict_Next(p, &pos, &k, &v)) {
        PyObject *def = v, *help = NULL;
        if (PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 2)
            def = PyTuple_GET_ITEM(v, 0), help = PyTuple_GET_ITEM(v, 1);
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "Policy.params: names must be "
                                             "strings");
            goto out;
        }
        struct hetsim_policy_param *q = &sl->params[n++];
        q->name = keep_text(sl, k);
        q->def = q->name ? keep_text(sl, def) : NULL;
        q->help = q->def && help ? keep_text(sl, help) : "";
        if (!q->help || PyDict_SetItem(sl->defaults, k, def) < 0)
            goto out;
    }
    rc = 0;
out:
    Py_DECREF(p);
    return rc;
}

/* Fills SL's table for class CLS (NAME unless it has a `name`). */
static int fill_slot(struct hslot *sl, PyObject *cls, const char *name)
{
    Py_INCREF(cls);
    Py_XSETREF(sl->cls, cls);
    Py_XSETREF(sl->keep, PyList_New(0));
    Py_XSETREF(sl->defaults, PyDict_New());
    memset(sl->params, 0, sizeof sl->params);
    if (!sl->keep || !sl->defaults)
        return -1;
    PyObject *sched = PyObject_GetAttrString(cls, "schedule");
    int ok = sched && PyCallable_Check(sched);
    Py_XDECREF(sched);
    if (!ok) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "class Policy has no method "
                                         "schedule(self, sim)");
        return -1;
    }
    PyObject *n = PyObject_GetAttrString(cls, "name");
    if (!n || !PyUnicode_Check(n)) {
        PyErr_Clear();
        Py_XSETREF(n, PyUnicode_FromString(name));
    }
    PyObject *doc = PyObject_GetAttrString(cls, "__doc__");
    PyObject *line = doc && PyUnicode_Check(doc)
                         ? PyObject_CallMethod(doc, "strip", NULL)
                         : NULL;
    PyErr_Clear();
    struct hetsim_policy_plugin *t = &sl->table;
    *t =
        (struct hetsim_policy_plugin){.abi_version = HETSIM_POLICY_ABI_VERSION};
    t->name = n ? keep_text(sl, n) : NULL;
    t->description = line ? keep_text(sl, line) : "a policy in Python";
    Py_XDECREF(n);
    Py_XDECREF(doc);
    Py_XDECREF(line);
    if (!t->name || !t->description || fill_params(sl))
        return -1;
    int needs = class_flag(cls, "needs_estimates");
    int preempts = class_flag(cls, "preemptive");
    if (needs < 0 || preempts < 0)
        return -1;
    t->params = sl->params;
    t->needs_estimates = needs;
    t->preemptive = preempts;
    t->create = create_for[sl - hslots];
    t->destroy = t_destroy;
    t->on_arrival =
        PyObject_HasAttrString(cls, "on_arrival") ? t_arrival : NULL;
    t->on_finish = PyObject_HasAttrString(cls, "on_finish") ? t_finish : NULL;
    t->schedule = t_schedule;
    return 0;
}

/* The slot for KEY: its own, else a free one; NULL when all are taken. */
static struct hslot *slot_for(const char *key)
{
    struct hslot *free_slot = NULL;
    for (size_t i = 0; i < HPY_SLOTS; i++) {
        if (hslots[i].key[0] && strcmp(hslots[i].key, key) == 0)
            return &hslots[i];
        if (!hslots[i].key[0] && !free_slot)
            free_slot = &hslots[i];
    }
    return free_slot;
}

/* Makes SL's ops from CLS. */
static int install(struct hslot *sl, const char *key, const char *file,
                   PyObject *cls, const char *name, char *why, size_t cap)
{
    if (fill_slot(sl, cls, name)) {
        char text[512];
        hpy_error_text(text, sizeof text, NULL);
        snprintf(why, cap, "%s: bad Python policy: %s", file, text);
        return SIM_EPARSE;
    }
    int rc = pol_plugin_register(&sl->table, &sl->ops, why, cap);
    if (rc)
        return rc;
    snprintf(sl->key, sizeof sl->key, "%s", key);
    snprintf(sl->file, sizeof sl->file, "%s", file);
    return 0;
}

void hpy_host_clear(void)
{
    for (size_t i = 0; i < HPY_SLOTS; i++) {
        Py_CLEAR(hslots[i].cls);
        Py_CLEAR(hslots[i].keep);
        Py_CLEAR(hslots[i].defaults);
        hslots[i].key[0] = '\0';
    }
}

int hpy_install(const char *key, const char *file, PyObject *cls,
                const char *name, const struct pol_ops **out, char *why,
                size_t cap)
{
    struct hslot *sl = slot_for(key);
    if (!sl) {
        snprintf(why, cap, "%s: too many Python policies loaded (at most %d)",
                 file, HPY_SLOTS);
        return SIM_EINVAL;
    }
    int rc = install(sl, key, file, cls, name, why, cap);
    if (!rc)
        *out = sl->ops;
    return rc;
}

const struct pol_ops *hpy_installed(const char *key)
{
    for (size_t i = 0; i < HPY_SLOTS; i++)
        if (hslots[i].key[0] && strcmp(hslots[i].key, key) == 0)
            return hslots[i].ops;
    return NULL;
}
