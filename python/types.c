/* types.c -- hetsim.Placement (GPUs for one job, as sim.place() gives and
 * sim.start() takes) and hetsim.Job (a read-through view of one job). */
#include "hpy_internal.h"

#include <structmember.h>

/* ---- Placement ---------------------------------------------------------- */

static void placement_dealloc(hpy_placement *p)
{
    if (p->seg != p->inl)
        PyMem_Free(p->seg);
    PyObject_Free(p);
}

/* Placement(gpu_type, [(node, gpus), ...]) */
static PyObject *placement_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"gpu_type", "segments", NULL};
    int gpu_type;
    PyObject *segs;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iO", kwlist, &gpu_type, &segs))
        return NULL;
    PyObject *seq = PySequence_Fast(segs, "segments must be a sequence of "
                                          "(node, gpus) pairs");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    hpy_placement *p = (hpy_placement *)type->tp_alloc(type, 0);
    if (!p) {
        Py_DECREF(seq);
        return NULL;
    }
    p->gpu_type = gpu_type;
    p->seg = p->inl;
    if (n > HPY_INLINE_SEGS &&
        !(p->seg = PyMem_Malloc((size_t)n * sizeof *p->seg))) {
        p->seg = p->inl;
        Py_DECREF(seq);
        Py_DECREF(p);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int node, gpus;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i),
                              "ii;each segment is (node, gpus)", &node,
                              &gpus)) {
            Py_DECREF(seq);
            Py_DECREF(p);
            return NULL;
        }
        p->seg[i] = (struct hetsim_seg){node, gpus};
        p->nseg = (int32_t)(i + 1);
    }
    Py_DECREF(seq);
    return (PyObject *)p;
}

static PyObject *placement_segments(hpy_placement *p, void *unused)
{
    (void)unused;
    PyObject *t = PyTuple_New(p->nseg);
    for (int32_t i = 0; t && i < p->nseg; i++) {
        PyObject *pair = Py_BuildValue("(ii)", p->seg[i].node, p->seg[i].gpus);
        if (!pair) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, pair);
    }
    return t;
}

static PyObject *placement_num_gpus(hpy_placement *p, void *unused)
{
    (void)unused;
    long total = 0;
    for (int32_t i = 0; i < p->nseg; i++)
        total += p->seg[i].gpus;
    return PyLong_FromLong(total);
}

static PyObject *placement_repr(hpy_placement *p)
{
    PyObject *segs = placement_segments(p, NULL);
    if (!segs)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("Placement(gpu_type=%d, segments=%R)",
                                       (int)p->gpu_type, segs);
    Py_DECREF(segs);
    return r;
}

static PyMemberDef placement_members[] = {
    {"gpu_type", T_INT, offsetof(hpy_placement, gpu_type), READONLY,
     "the GPU type"},
    {"nseg", T_INT, offsetof(hpy_placement, nseg), READONLY,
     "segments (nodes)"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef placement_getset[] = {
    {"segments", (getter)placement_segments, NULL,
     "((node, gpus), ...), one per node", NULL},
    {"num_gpus", (getter)placement_num_gpus, NULL, "GPUs in all", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject hpy_placement_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hetsim.Placement",
    .tp_basicsize = sizeof(hpy_placement),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Placement(gpu_type, [(node, gpus), ...]): GPUs for one job.",
    .tp_new = placement_new,
    .tp_dealloc = (destructor)placement_dealloc,
    .tp_repr = (reprfunc)placement_repr,
    .tp_members = placement_members,
    .tp_getset = placement_getset,
};

/* ---- Job ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD PyObject *sim; /* hpy_sim */
    long id;
} hpy_job;

static PyObject *job_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *sim;
    long id;
    if (!PyArg_ParseTuple(args, "O!l", &hpy_sim_type, &sim, &id) ||
        (kw && PyDict_GET_SIZE(kw))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "Job(sim, id)");
        return NULL;
    }
    hpy_job *j = (hpy_job *)type->tp_alloc(type, 0);
    if (!j)
        return NULL;
    Py_INCREF(sim);
    j->sim = sim;
    j->id = id;
    return (PyObject *)j;
}

static void job_dealloc(hpy_job *j)
{
    Py_XDECREF(j->sim);
    Py_TYPE(j)->tp_free(j);
}

/* Calls sim.NAME(id): every attribute reads through the api, now. */
static PyObject *job_read(hpy_job *j, void *name)
{
    PyObject *id = PyLong_FromLong(j->id);
    if (!id)
        return NULL;
    PyObject *r = PyObject_CallMethod(j->sim, (const char *)name, "O", id);
    Py_DECREF(id);
    return r;
}

static PyObject *job_repr(hpy_job *j)
{
    return PyUnicode_FromFormat("Job(%ld)", j->id);
}

#define JOB_ATTR(attr, method, doc)                                            \
    {                                                                          \
        attr, (getter)job_read, NULL, doc, (void *)method                      \
    }
static PyGetSetDef job_getset[] = {
    JOB_ATTR("submit_time", "job_submit_time", "s"),
    JOB_ATTR("num_gpus", "job_num_gpus", "GPUs it needs"),
    JOB_ATTR("state", "job_state", "hetsim.JOB_*"),
    JOB_ATTR("est_remaining_s", "job_est_remaining_s", "s, -1 if none"),
    JOB_ATTR("attained_s", "job_attained_s", "s run so far"),
    JOB_ATTR("allowed_types", "job_allowed_types", "bit mask"),
    JOB_ATTR("gpu_type", "job_gpu_type", "type it runs/ran on, -1 never"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef job_members[] = {
    {"id", T_LONG, offsetof(hpy_job, id), READONLY, "the job's number"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject hpy_job_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hetsim.Job",
    .tp_basicsize = sizeof(hpy_job),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Job(sim, id): job id as sim reads it now (sim.job(id)).",
    .tp_new = job_new,
    .tp_dealloc = (destructor)job_dealloc,
    .tp_repr = (reprfunc)job_repr,
    .tp_members = job_members,
    .tp_getset = job_getset,
};

int hpy_types_ready(void)
{
    if (PyType_Ready(&hpy_sim_type) < 0 ||
        PyType_Ready(&hpy_placement_type) < 0 ||
        PyType_Ready(&hpy_job_type) < 0)
        return -1;
    if (!hpy_illegal_decision) {
        hpy_illegal_decision = PyErr_NewExceptionWithDoc(
            "hetsim.IllegalDecision",
            "A decision the engine would refuse (start, preempt, wake_at).",
            PyExc_RuntimeError, NULL);
        if (!hpy_illegal_decision)
            return -1;
    }
    return 0;
}
