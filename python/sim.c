/* sim.c -- the `sim` a Python policy is handed: each method one function of
 * struct hetsim_policy_api (hetsim/policy_abi.h), same name, same meaning,
 * called through the api table so that its checks apply; a few
 * conveniences (queue(), job()) are built on them. Out-of-range numbers
 * raise IndexError instead of stopping hetsim, and an illegal decision
 * raises hetsim.IllegalDecision before the engine sees it, so that a
 * policy may catch it and go on. */
#include "hpy_internal.h" /* Python.h first */

#include <math.h>

PyObject *hpy_illegal_decision;

static const char *const state_names[] = {"submitted", "queued",    "running",
                                          "preempted", "completed", "failed"};

static int live(const hpy_sim *self)
{
    if (self->s)
        return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "hetsim: sim used outside the hook call it was given to");
    return -1;
}

/* Reads a number in [0, n) from O (an int, or a Job for jobs). */
static int index_arg(const hpy_sim *self, PyObject *o, long n, const char *what,
                     long *out)
{
    if (live(self))
        return -1;
    long v;
    if (Py_IS_TYPE(o, &hpy_job_type)) {
        PyObject *id = PyObject_GetAttrString(o, "id");
        v = id ? PyLong_AsLong(id) : -1;
        Py_XDECREF(id);
    } else
        v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v >= n) {
        PyErr_Format(PyExc_IndexError, "%s %ld out of range [0, %ld)", what, v,
                     n);
        return -1;
    }
    *out = v;
    return 0;
}

#define JOB_ARG(o, j)                                                          \
    long j;                                                                    \
    if (index_arg(self, o, self->njobs, "job", &j))                            \
    return NULL
#define TYPE_ARG(o, t)                                                         \
    long t;                                                                    \
    if (index_arg(self, o, self->ntypes, "GPU type", &t))                      \
    return NULL
#define NODE_ARG(o, n)                                                         \
    long n;                                                                    \
    if (index_arg(self, o, self->nnodes, "node", &n))                          \
    return NULL
#define API(f) self->api->f

/* ---- Reading ------------------------------------------------------------ */

static PyObject *m_now(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    return PyFloat_FromDouble(API(now)(self->s));
}

static PyObject *m_num_jobs(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    return PyLong_FromSize_t(API(num_jobs)(self->s));
}

static PyObject *m_queue_head(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    return PyLong_FromLong(API(queue_head)(self->s));
}

static PyObject *m_queue_next(hpy_sim *self, PyObject *o)
{
    JOB_ARG(o, j);
    return PyLong_FromLong(API(queue_next)(self->s, (uint32_t)j));
}

static PyObject *m_queue_len(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    return PyLong_FromSize_t(API(queue_len)(self->s));
}

#define JOB_GETTER(name, conv)                                                 \
    static PyObject *m_##name(hpy_sim *self, PyObject *o)                      \
    {                                                                          \
        JOB_ARG(o, j);                                                         \
        return conv(API(name)(self->s, (uint32_t)j));                          \
    }
JOB_GETTER(job_submit_time, PyFloat_FromDouble)
JOB_GETTER(job_num_gpus, PyLong_FromLong)
JOB_GETTER(job_state, PyLong_FromLong)
JOB_GETTER(job_est_remaining_s, PyFloat_FromDouble)
JOB_GETTER(job_attained_s, PyFloat_FromDouble)
JOB_GETTER(job_allowed_types, PyLong_FromUnsignedLong)
JOB_GETTER(job_gpu_type, PyLong_FromLong)
JOB_GETTER(job_gpu_milli, PyLong_FromLong)
JOB_GETTER(job_est_gpu_util, PyFloat_FromDouble)

static PyObject *m_job_runtime_on(hpy_sim *self, PyObject *const *args,
                                  Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "job_runtime_on(job, type, spread) takes 3 arguments");
        return NULL;
    }
    JOB_ARG(args[0], j);
    TYPE_ARG(args[1], t);
    int spread = PyObject_IsTrue(args[2]);
    if (spread < 0)
        return NULL;
    return PyFloat_FromDouble(
        API(job_runtime_on)(self->s, (uint32_t)j, (int32_t)t, spread));
}

static PyObject *m_num_gpu_types(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    return PyLong_FromLong(API(num_gpu_types)(self->s));
}

static PyObject *m_gpu_type_name(hpy_sim *self, PyObject *o)
{
    TYPE_ARG(o, t);
    return PyUnicode_FromString(API(gpu_type_name)(self->s, (int32_t)t));
}

#define INT_GETTER(name, ARG, conv)                                            \
    static PyObject *m_##name(hpy_sim *self, PyObject *o)                      \
    {                                                                          \
        ARG(o, x);                                                             \
        return conv(API(name)(self->s, (int32_t)x));                           \
    }
INT_GETTER(gpu_type_speed, TYPE_ARG, PyFloat_FromDouble)
INT_GETTER(gpu_type_gpus, TYPE_ARG, PyLong_FromLong)
INT_GETTER(free_gpus, TYPE_ARG, PyLong_FromLong)
INT_GETTER(node_gpu_type, NODE_ARG, PyLong_FromLong)
INT_GETTER(node_gpus, NODE_ARG, PyLong_FromLong)
INT_GETTER(node_free, NODE_ARG, PyLong_FromLong)

static PyObject *m_num_nodes(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    return PyLong_FromLong(API(num_nodes)(self->s));
}

/* ---- Conveniences ------------------------------------------------------- */

static PyObject *m_queue(hpy_sim *self, PyObject *unused)
{
    (void)unused;
    if (live(self))
        return NULL;
    PyObject *list = PyList_New((Py_ssize_t)API(queue_len)(self->s));
    Py_ssize_t i = 0;
    for (int32_t j = API(queue_head)(self->s); list && j >= 0;
         j = API(queue_next)(self->s, (uint32_t)j)) {
        PyObject *v = PyLong_FromLong(j);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i++, v);
    }
    return list;
}

static PyObject *m_job(hpy_sim *self, PyObject *o)
{
    JOB_ARG(o, j);
    PyObject *id = PyLong_FromLong(j);
    if (!id)
        return NULL;
    PyObject *args[2] = {(PyObject *)self, id};
    PyObject *job =
        PyObject_Vectorcall((PyObject *)&hpy_job_type, args, 2, NULL);
    Py_DECREF(id);
    return job;
}

/* ---- Deciding ----------------------------------------------------------- */

static PyObject *illegal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (msg) {
        PyErr_SetObject(hpy_illegal_decision, msg);
        Py_DECREF(msg);
    }
    return NULL;
}

static PyObject *code_error(int rc, const char *what)
{
    if (rc == HETSIM_ENOMEM)
        return PyErr_NoMemory();
    if (rc == HETSIM_EDECISION)
        return illegal("%s: the engine refused it", what);
    PyErr_Format(PyExc_ValueError, "%s: invalid argument (code %d)", what, rc);
    return NULL;
}

static PyObject *m_place(hpy_sim *self, PyObject *o)
{
    JOB_ARG(o, j);
    struct hetsim_placement out;
    int rc = API(place)(self->s, (uint32_t)j, &out);
    if (rc == HETSIM_NO_ROOM)
        Py_RETURN_NONE;
    if (rc)
        return code_error(rc, "place");
    hpy_placement *p = PyObject_New(hpy_placement, &hpy_placement_type);
    if (!p)
        return NULL;
    p->gpu_type = out.gpu_type;
    p->nseg = out.nseg;
    p->seg = p->inl;
    if (out.nseg > HPY_INLINE_SEGS &&
        !(p->seg = PyMem_Malloc((size_t)out.nseg * sizeof *p->seg))) {
        p->seg = p->inl;
        p->nseg = 0;
        Py_DECREF(p);
        return PyErr_NoMemory();
    }
    memcpy(p->seg, out.seg, (size_t)out.nseg * sizeof *p->seg);
    return (PyObject *)p;
}

/* Why P may not start job J now, as the engine would say, or NULL. */
static PyObject *check_start(hpy_sim *self, uint32_t j, const hpy_placement *p)
{
    int st = API(job_state)(self->s, j);
    if (st != HETSIM_JOB_QUEUED && st != HETSIM_JOB_PREEMPTED)
        return illegal("start: job %u is not waiting (it is %s)", j,
                       state_names[st]);
    if (p->gpu_type < 0 || p->gpu_type >= self->ntypes)
        return illegal("start: job %u: GPU type %d out of range [0, %ld)", j,
                       (int)p->gpu_type, self->ntypes);
    if (!(API(job_allowed_types)(self->s, j) & (1u << p->gpu_type)))
        return illegal("start: job %u may not run on GPU type %s", j,
                       API(gpu_type_name)(self->s, p->gpu_type));
    long total = 0;
    /* a share goes on a GPU that others may use: the engine checks it */
    int share = API(job_gpu_milli)(self->s, j) < 1000;
    for (int32_t i = 0; i < p->nseg; i++) {
        int32_t n = p->seg[i].node, g = p->seg[i].gpus;
        if (n < 0 || n >= self->nnodes)
            return illegal("start: job %u: node %d out of range [0, %ld)", j,
                           (int)n, self->nnodes);
        if (API(node_gpu_type)(self->s, n) != p->gpu_type)
            return illegal("start: job %u: node %d is not of GPU type %s", j,
                           (int)n, API(gpu_type_name)(self->s, p->gpu_type));
        if (g <= 0 || (!share && g > API(node_free)(self->s, n)))
            return illegal("start: job %u: %d GPUs on node %d, which has %d "
                           "free",
                           j, (int)g, (int)n, (int)API(node_free)(self->s, n));
        for (int32_t k = 0; k < i; k++)
            if (p->seg[k].node == n)
                return illegal("start: job %u: node %d named twice", j, (int)n);
        total += g;
    }
    if (total != API(job_num_gpus)(self->s, j))
        return illegal("start: job %u needs %d GPUs, the placement gives %ld",
                       j, (int)API(job_num_gpus)(self->s, j), total);
    return Py_None;
}

static PyObject *m_start(hpy_sim *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError,
                        "start(job, placement) takes 2 arguments");
        return NULL;
    }
    JOB_ARG(args[0], j);
    if (!Py_IS_TYPE(args[1], &hpy_placement_type)) {
        PyErr_Format(PyExc_TypeError,
                     "start: placement must be a "
                     "hetsim.Placement (from sim.place()), not %s",
                     Py_TYPE(args[1])->tp_name);
        return NULL;
    }
    const hpy_placement *p = (const hpy_placement *)args[1];
    if (!check_start(self, (uint32_t)j, p))
        return NULL;
    struct hetsim_placement hp = {p->gpu_type, p->nseg, p->seg};
    int rc = API(start)(self->s, (uint32_t)j, &hp);
    if (rc)
        return code_error(rc, "start");
    Py_RETURN_NONE;
}

static PyObject *m_preempt(hpy_sim *self, PyObject *o)
{
    JOB_ARG(o, j);
    int st = API(job_state)(self->s, (uint32_t)j);
    if (st != HETSIM_JOB_RUNNING)
        return illegal("preempt: job %ld is not running (it is %s)", j,
                       state_names[st]);
    int rc = API(preempt)(self->s, (uint32_t)j);
    if (rc)
        return code_error(rc, "preempt");
    Py_RETURN_NONE;
}

static PyObject *m_wake_at(hpy_sim *self, PyObject *o)
{
    if (live(self))
        return NULL;
    double t = PyFloat_AsDouble(o);
    if (t == -1 && PyErr_Occurred())
        return NULL;
    double now = API(now)(self->s);
    if (!(t >= now) || !isfinite(t)) {
        char text[160];
        snprintf(text, sizeof text,
                 "wake_at: time %.17g is before now "
                 "(%.17g) or not finite",
                 t, now);
        return illegal("%s", text);
    }
    int rc = API(wake_at)(self->s, t);
    if (rc)
        return code_error(rc, "wake_at");
    Py_RETURN_NONE;
}

#define NOARGS(name, doc)                                                      \
    {                                                                          \
#name, (PyCFunction)m_##name, METH_NOARGS, doc                         \
    }
#define ONEARG(name, doc)                                                      \
    {                                                                          \
#name, (PyCFunction)m_##name, METH_O, doc                              \
    }
#define FAST(name, doc)                                                        \
    {                                                                          \
#name, (PyCFunction)(void (*)(void))m_##name, METH_FASTCALL, doc       \
    }

static PyMethodDef sim_methods[] = {
    NOARGS(now, "now() -> simulated time, s"),
    NOARGS(num_jobs, "num_jobs() -> jobs of the trace"),
    NOARGS(queue_head, "queue_head() -> first waiting job, or -1"),
    ONEARG(queue_next, "queue_next(job) -> next waiting job, or -1"),
    NOARGS(queue_len, "queue_len() -> waiting jobs"),
    ONEARG(job_submit_time, "job_submit_time(job) -> s"),
    ONEARG(job_num_gpus, "job_num_gpus(job) -> GPUs it needs"),
    ONEARG(job_state, "job_state(job) -> hetsim.JOB_*"),
    ONEARG(job_est_remaining_s, "job_est_remaining_s(job) -> s, -1 if none"),
    ONEARG(job_attained_s, "job_attained_s(job) -> s run so far"),
    ONEARG(job_allowed_types, "job_allowed_types(job) -> bit mask"),
    ONEARG(job_gpu_type, "job_gpu_type(job) -> type it runs/ran on, or -1"),
    FAST(job_runtime_on, "job_runtime_on(job, type, spread) -> s, 0 = no"),
    ONEARG(job_gpu_milli,
           "job_gpu_milli(job) -> milli-GPU per GPU, 1000 whole"),
    ONEARG(job_est_gpu_util, "job_est_gpu_util(job) -> 0..1, -1 if none"),
    NOARGS(num_gpu_types, "num_gpu_types()"),
    ONEARG(gpu_type_name, "gpu_type_name(type) -> str"),
    ONEARG(gpu_type_speed, "gpu_type_speed(type) -> relative speed"),
    ONEARG(gpu_type_gpus, "gpu_type_gpus(type) -> GPUs of the type"),
    ONEARG(free_gpus, "free_gpus(type) -> free GPUs of the type"),
    NOARGS(num_nodes, "num_nodes()"),
    ONEARG(node_gpu_type, "node_gpu_type(node)"),
    ONEARG(node_gpus, "node_gpus(node)"),
    ONEARG(node_free, "node_free(node)"),
    ONEARG(place, "place(job) -> Placement, or None when nothing fits"),
    FAST(start, "start(job, placement): starts a waiting job"),
    ONEARG(preempt, "preempt(job): stops a running job"),
    ONEARG(wake_at, "wake_at(time): a schedule call at time >= now"),
    NOARGS(queue, "queue() -> list of the waiting jobs, in queue order"),
    ONEARG(job, "job(j) -> a hetsim.Job view of job j"),
    {NULL, NULL, 0, NULL},
};

static void sim_dealloc(hpy_sim *self)
{
    PyObject_Free(self);
}

PyTypeObject hpy_sim_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hetsim.Sim",
    .tp_basicsize = sizeof(hpy_sim),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The simulation as a policy sees it (hetsim/policy_abi.h).",
    .tp_methods = sim_methods,
    .tp_dealloc = (destructor)sim_dealloc,
};

hpy_sim *hpy_sim_new(const struct hetsim_policy_api *api, struct hetsim_sim *s)
{
    hpy_sim *self = PyObject_New(hpy_sim, &hpy_sim_type);
    if (!self)
        return NULL;
    self->api = api;
    self->s = s;
    self->njobs = (long)api->num_jobs(s);
    self->ntypes = api->num_gpu_types(s);
    self->nnodes = api->num_nodes(s);
    return self;
}
