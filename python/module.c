/* module.c -- the `hetsim` Python module: IllegalDecision, Placement, Job,
 * the job-state constants, and run(), which calls the same library code as
 * `hetsim run` (cli_run, in this process) and reads its results back. In
 * the hetsim program, where Python runs inside hetsim, run() is not
 * offered. */
#include "hpy_internal.h" /* Python.h first */

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int (*hpy_cli_run)(int argc, char **argv);

static PyObject *error_type; /* hetsim.Error */

/* Runs cli_run on ARGV with stderr going to a temporary file; returns the
 * exit code and sets *TEXT to what it said (a new str, may be NULL). */
static int run_captured(int argc, char **argv, PyObject **text)
{
    *text = NULL;
    char tmpl[] = "/tmp/hetsim-py-XXXXXX";
    int fd = mkstemp(tmpl);
    int saved = fd >= 0 ? dup(2) : -1;
    if (fd >= 0)
        unlink(tmpl);
    fflush(stderr);
    if (saved >= 0)
        dup2(fd, 2);
    int rc = hpy_cli_run(argc, argv);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
        off_t len = lseek(fd, 0, SEEK_END);
        char *buf = len > 0 ? PyMem_Malloc((size_t)len + 1) : NULL;
        if (buf && pread(fd, buf, (size_t)len, 0) == len) {
            buf[len] = '\0';
            *text = PyUnicode_DecodeUTF8(buf, len, "replace");
        }
        PyMem_Free(buf);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

/* _cli(argv: list of str) -> messages; raises the policy's exception, or
 * hetsim.Error(code, messages) when the run failed. */
static PyObject *m_cli(PyObject *mod, PyObject *list)
{
    (void)mod;
    if (!hpy_cli_run) {
        PyErr_SetString(PyExc_RuntimeError, "hetsim.run() is not available "
                                            "inside the hetsim program");
        return NULL;
    }
    if (!PyList_Check(list))
        return PyErr_Format(PyExc_TypeError, "_cli wants a list");
    Py_ssize_t n = PyList_GET_SIZE(list);
    char **argv = PyMem_Calloc((size_t)n + 2, sizeof *argv);
    if (!argv)
        return PyErr_NoMemory();
    argv[0] = "run";
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(list, i));
        if (!s) {
            PyMem_Free(argv);
            return NULL;
        }
        argv[i + 1] = (char *)s;
    }
    PyObject *text = NULL;
    hpy_keep_errors(1);
    int rc = run_captured((int)n + 1, argv, &text);
    PyObject *e = hpy_take_error();
    hpy_keep_errors(0);
    PyMem_Free(argv);
    if (e) {
        Py_XDECREF(text);
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
        return NULL;
    }
    if (rc) {
        PyObject *args = Py_BuildValue("(iO)", rc, text ? text : Py_None);
        if (args)
            PyErr_SetObject(error_type, args);
        Py_XDECREF(args);
        Py_XDECREF(text);
        return NULL;
    }
    return text ? text : PyUnicode_FromString("");
}

/* _register(cls) -> the policy name hetsim run knows it by. */
static PyObject *m_register(PyObject *mod, PyObject *cls)
{
    (void)mod;
    if (!PyType_Check(cls))
        return PyErr_Format(PyExc_TypeError,
                            "policy must be a class or a "
                            "name, not %s",
                            Py_TYPE(cls)->tp_name);
    char why[1024];
    if (hpy_ensure_python(why, sizeof why))
        return PyErr_Format(PyExc_RuntimeError, "%s", why);
    PyObject *m = PyObject_GetAttrString(cls, "__module__");
    PyObject *q = m ? PyObject_GetAttrString(cls, "__qualname__") : NULL;
    PyObject *name = q ? PyUnicode_FromFormat("python:%S.%S", m, q) : NULL;
    Py_XDECREF(m);
    Py_XDECREF(q);
    if (!name)
        return NULL;
    PyObject *file = PyUnicode_FromFormat("class %S", name);
    int rc = file ? hpy_register_class(cls, PyUnicode_AsUTF8(name),
                                       PyUnicode_AsUTF8(file), why, sizeof why)
                  : -1;
    Py_XDECREF(file);
    if (rc) {
        Py_DECREF(name);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "%s", why);
        return NULL;
    }
    return name;
}

static PyMethodDef module_methods[] = {
    {"_cli", (PyCFunction)m_cli, METH_O, "runs `hetsim run ARGV` here"},
    {"_register", (PyCFunction)m_register, METH_O, "makes a policy of a class"},
    {NULL, NULL, 0, NULL},
};

/* run() and its helpers, in Python: they only build the command line and
 * read the result files back. */
static const char module_src[] =
    "import csv as _csv, json as _json, os as _os, tempfile as _tempfile\n"
    "class Error(RuntimeError):\n"
    "    '''hetsim run failed: .code is its exit code (1 runtime, 2 usage,\n"
    "    3 bad input), .messages what it said.'''\n"
    "    def __init__(self, code, messages):\n"
    "        super().__init__(f'hetsim run exited {code}: '\n"
    "                         f'{(messages or \"\").strip()}')\n"
    "        self.code, self.messages = code, messages\n"
    "def _number(text):\n"
    "    for kind in (int, float):\n"
    "        try: return kind(text)\n"
    "        except ValueError: pass\n"
    "    return text\n"
    "def read_jobs(path, frame=None):\n"
    "    '''jobs.csv as a pandas DataFrame (when pandas is there and frame\n"
    "    is not False), else as a list of dicts with numbers converted.'''\n"
    "    if frame is not False:\n"
    "        try:\n"
    "            import pandas\n"
    "            return pandas.read_csv(path)\n"
    "        except ImportError:\n"
    "            if frame: raise\n"
    "    with open(path, newline='') as f:\n"
    "        return [{k: _number(v) for k, v in row.items()}\n"
    "                for row in _csv.DictReader(f)]\n"
    "def run(trace, cluster, policy='fifo', *, out=None, seed=None,\n"
    "        placement=None, backfill=None, estimates=None, policy_opts=None,\n"
    "        throughputs=None, trace_format=None, frame=None, args=()):\n"
    "    '''Runs `hetsim run` in this process and returns (summary, jobs):\n"
    "    summary.json as a dict, jobs.csv as read_jobs() gives it. POLICY is\n"
    "    a name (\"sjf\", \"mine.py\", \"./libmine.so\") or a class written\n"
    "    like a policy file's Policy. OUT keeps the result folder (default:\n"
    "    a temporary one). ARGS: more `hetsim run` options.'''\n"
    "    name = _register(policy) if isinstance(policy, type) else "
    "str(policy)\n"
    "    tmp = None if out is not None else _tempfile.TemporaryDirectory(\n"
    "        prefix='hetsim-')\n"
    "    dest = _os.fspath(out) if out is not None else \\\n"
    "        _os.path.join(tmp.name, 'run')\n"
    "    argv = ['-q', '--trace', _os.fspath(trace), '--cluster',\n"
    "            _os.fspath(cluster), '--policy', name, '--out', dest]\n"
    "    for opt, v in (('--seed', seed), ('--placement', placement),\n"
    "                   ('--backfill', backfill), ('--estimates', estimates),\n"
    "                   ('--throughputs', throughputs),\n"
    "                   ('--format', trace_format)):\n"
    "        if v is not None: argv += [opt, _os.fspath(v) if\n"
    "                                   isinstance(v, _os.PathLike) else "
    "str(v)]\n"
    "    for k, v in (policy_opts or {}).items():\n"
    "        argv += ['--policy-opt', f'{k}={v}']\n"
    "    argv += [str(a) for a in args]\n"
    "    try:\n"
    "        _cli(argv)\n"
    "        with open(_os.path.join(dest, 'summary.json')) as f:\n"
    "            summary = _json.load(f)\n"
    "        jobs = read_jobs(_os.path.join(dest, 'jobs.csv'), frame)\n"
    "    finally:\n"
    "        if tmp is not None: tmp.cleanup()\n"
    "    return summary, jobs\n";

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "hetsim",
    "hetsim: policies in Python, and runs from Python (docs/python.md).",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyObject *hpy_module_init(void)
{
    if (hpy_types_ready())
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    Py_INCREF(hpy_illegal_decision);
    if (PyModule_AddObject(m, "IllegalDecision", hpy_illegal_decision) < 0 ||
        PyModule_AddType(m, &hpy_placement_type) < 0 ||
        PyModule_AddType(m, &hpy_job_type) < 0 ||
        PyModule_AddType(m, &hpy_sim_type) < 0 ||
        PyModule_AddStringConstant(m, "__version__", HETSIM_VERSION) < 0)
        goto fail;
    static const struct {
        const char *name;
        int value;
    } consts[] = {
        {"JOB_SUBMITTED", HETSIM_JOB_SUBMITTED},
        {"JOB_QUEUED", HETSIM_JOB_QUEUED},
        {"JOB_RUNNING", HETSIM_JOB_RUNNING},
        {"JOB_PREEMPTED", HETSIM_JOB_PREEMPTED},
        {"JOB_COMPLETED", HETSIM_JOB_COMPLETED},
        {"JOB_FAILED", HETSIM_JOB_FAILED},
        {"ABI_VERSION", HETSIM_POLICY_ABI_VERSION},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0)
            goto fail;
    PyObject *d = PyModule_GetDict(m);
    PyObject *r = PyRun_String(module_src, Py_file_input, d, d);
    if (!r)
        goto fail;
    Py_DECREF(r);
    error_type = PyDict_GetItemString(d, "Error");
    if (!error_type)
        goto fail;
    Py_INCREF(error_type);
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
