/* pyerr.c -- the embedded interpreter (started on first use unless hetsim
 * runs inside Python already), a few helpers written in Python, and how a
 * policy's exception is told: "FILE:LINE: Type: message" first (the
 * innermost frame), then the traceback. */
#include "hpy_internal.h"

/* Helpers run once in their own namespace. */
static const char helpers_src[] =
    "import traceback as _tb, types as _types\n"
    "def headline(e):\n"
    "    name = type(e).__name__\n"
    "    if isinstance(e, SyntaxError) and e.filename:\n"
    "        return f'{e.filename}:{e.lineno}: {name}: {e.msg}'\n"
    "    frames = _tb.extract_tb(e.__traceback__)\n"
    "    if frames:\n"
    "        f = frames[-1]\n"
    "        return f'{f.filename}:{f.lineno}: {name}: {e}'\n"
    "    return f'{name}: {e}'\n"
    "def format(e):\n"
    "    return ''.join(_tb.format_exception(type(e), e, e.__traceback__))\n"
    "def config(seed, placement, backfill, has_estimates, opts):\n"
    "    return _types.SimpleNamespace(seed=seed, placement=placement,\n"
    "        backfill=backfill, has_estimates=bool(has_estimates), opts=opts)\n"
    "def instantiate(cls, config):\n"
    "    init = cls.__init__\n"
    "    if init is object.__init__:\n"
    "        return cls()\n"
    "    code = getattr(init, '__code__', None)\n"
    "    if code is not None and code.co_argcount == 1 and \\\n"
    "            not code.co_flags & 0x04:  # __init__(self): no config\n"
    "        return cls()\n"
    "    return cls(config)\n"
    "def convert(default, key, text):\n"
    "    if isinstance(default, bool):\n"
    "        t = text.strip().lower()\n"
    "        if t in ('1', 'true', 'yes', 'on'): return True\n"
    "        if t in ('0', 'false', 'no', 'off'): return False\n"
    "        raise ValueError(f'--policy-opt {key} wants true or false, '\n"
    "                         f'got {text!r}')\n"
    "    if isinstance(default, (int, float)):\n"
    "        try: return type(default)(text)\n"
    "        except ValueError: pass\n"
    "        raise ValueError(f'--policy-opt {key} wants '\n"
    "                         f'{type(default).__name__} like {default!r}, '\n"
    "                         f'got {text!r}')\n"
    "    return text\n";

static PyObject *helpers; /* dict */
static int keep_errors;
static PyObject *kept; /* the exception kept for hetsim.run() */

PyObject *hpy_helper(const char *name)
{
    return helpers ? PyDict_GetItemString(helpers, name) : NULL;
}

static int helpers_ready(void)
{
    if (helpers)
        return 0;
    if (hpy_types_ready())
        return -1;
    PyObject *d = PyDict_New();
    if (!d)
        return -1;
    PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyRun_String(helpers_src, Py_file_input, d, d);
    if (!r) {
        Py_DECREF(d);
        return -1;
    }
    Py_DECREF(r);
    helpers = d;
    return 0;
}

int hpy_ensure_python(char *why, size_t cap)
{
    if (!Py_IsInitialized()) {
        if (PyImport_AppendInittab("hetsim", hpy_module_init) != 0) {
            snprintf(why, cap, "cannot register the hetsim Python module");
            return SIM_ENOMEM;
        }
        PyConfig config;
        PyConfig_InitPythonConfig(&config);
        config.install_signal_handlers = 0; /* Ctrl-C stops hetsim */
        config.parse_argv = 0;
        config.write_bytecode = 0; /* no __pycache__ beside policy files */
        PyStatus st = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(st)) {
            snprintf(why, cap, "cannot start Python: %s",
                     st.err_msg ? st.err_msg : "unknown error");
            return SIM_ENOMEM;
        }
        atexit(hpy_finalize);
    }
    if (helpers_ready()) {
        hpy_error_text(why, cap, NULL);
        return SIM_ENOMEM;
    }
    return 0;
}

void hpy_finalize(void)
{
    if (!Py_IsInitialized())
        return;
    hpy_host_clear();
    Py_CLEAR(helpers);
    Py_CLEAR(kept);
    Py_FinalizeEx();
}

/* The pending exception, normalized, with its traceback; cleared. */
static PyObject *fetch(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!type)
        return NULL;
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb && value)
        PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
}

/* Calls helper NAME on E; a new str or NULL (no error left set). */
static PyObject *call_helper(const char *name, PyObject *e)
{
    PyObject *f = hpy_helper(name);
    PyObject *r = f ? PyObject_CallOneArg(f, e) : NULL;
    if (!r || !PyUnicode_Check(r)) {
        PyErr_Clear();
        Py_XDECREF(r);
        return NULL;
    }
    return r;
}

void hpy_error_text(char *buf, size_t cap, PyObject **out)
{
    PyObject *e = fetch();
    if (out)
        *out = NULL;
    if (!e) {
        snprintf(buf, cap, "unknown Python error");
        return;
    }
    PyObject *h = call_helper("headline", e);
    const char *text = h ? PyUnicode_AsUTF8(h) : NULL;
    snprintf(buf, cap, "%s", text ? text : "Python error");
    PyErr_Clear();
    Py_XDECREF(h);
    if (out)
        *out = e;
    else
        Py_DECREF(e);
}

void hpy_report(char *head, size_t cap)
{
    PyObject *e = NULL;
    hpy_error_text(head, cap, &e);
    if (!e)
        return;
    if (keep_errors) {
        if (!kept)
            kept = e;
        else
            Py_DECREF(e);
        return;
    }
    PyObject *tb = call_helper("format", e);
    const char *text = tb ? PyUnicode_AsUTF8(tb) : NULL;
    fflush(stdout);
    fprintf(stderr, "hetsim: error: %s\n%s", head, text ? text : "");
    PyErr_Clear();
    Py_XDECREF(tb);
    Py_DECREF(e);
}

void hpy_keep_errors(int keep)
{
    keep_errors = keep;
    if (!keep)
        Py_CLEAR(kept);
}

PyObject *hpy_take_error(void)
{
    PyObject *e = kept;
    kept = NULL;
    return e;
}
