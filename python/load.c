/* load.c -- a policy file run in the embedded interpreter: its folder first
 * on sys.path, the file run as a module of its own name, its class Policy
 * made a policy by host.c. */
#include "hpy_internal.h" /* Python.h first, as it asks */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Runs the file PATH as module NAME; its namespace dict, or NULL. */
static PyObject *run_file(const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
    PyObject *mod = PyModule_New(name);
    PyObject *d = mod ? PyModule_GetDict(mod) : NULL;
    PyObject *sys_modules = PyImport_GetModuleDict();
    PyObject *file = PyUnicode_DecodeFSDefault(path);
    int ok =
        d && file && PyDict_SetItemString(d, "__file__", file) == 0 &&
        PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins()) == 0 &&
        PyDict_SetItemString(sys_modules, name, mod) == 0;
    Py_XDECREF(file);
    PyObject *r =
        ok ? PyRun_FileExFlags(f, path, Py_file_input, d, d, 0, NULL) : NULL;
    fclose(f);
    Py_XDECREF(r);
    if (!r) {
        Py_XDECREF(mod);
        return NULL;
    }
    Py_INCREF(d);
    Py_DECREF(mod); /* sys.modules keeps it */
    return d;
}

/* Puts the folder of PATH first on sys.path, for the file's own imports. */
static void add_folder(const char *path)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    PyObject *dir = PyUnicode_DecodeFSDefault(dirname(copy));
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    if (dir && sys_path && PySequence_Contains(sys_path, dir) == 0)
        PyList_Insert(sys_path, 0, dir);
    PyErr_Clear();
    Py_XDECREF(dir);
}

static int load_file(const char *path, const struct pol_ops **out, char *why,
                     size_t cap)
{
    struct stat st;
    char real[PATH_MAX];
    if (stat(path, &st) != 0 || !realpath(path, real)) {
        snprintf(why, cap, "%s: cannot open Python policy: %s", path,
                 strerror(errno));
        return SIM_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, cap, "%s: Python policy is not a file", path);
        return SIM_EIO;
    }
    int rc = hpy_ensure_python(why, cap);
    if (rc)
        return rc;
    char stem[256], copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(stem, sizeof stem, "%s", basename(copy));
    stem[strlen(stem) - 3] = '\0'; /* ".py" */
    add_folder(real);
    PyObject *d = run_file(path, stem);
    PyObject *cls = d ? PyDict_GetItemString(d, "Policy") : NULL;
    if (d && (!cls || !PyType_Check(cls)))
        PyErr_SetString(PyExc_TypeError, "the file defines no class Policy");
    if (!cls || !PyType_Check(cls)) {
        char text[512];
        hpy_error_text(text, sizeof text, NULL);
        if (strncmp(text, path, strlen(path)) == 0)
            snprintf(why, cap, "%s", text); /* already FILE:LINE: ... */
        else
            snprintf(why, cap, "%s: %s", path, text);
        Py_XDECREF(d);
        return SIM_EPARSE;
    }
    rc = hpy_install(real, path, cls, stem, out, why, cap);
    Py_DECREF(d);
    return rc;
}

int hpy_load_policy(const char *name, const struct pol_ops **out, char *why,
                    size_t cap)
{
    *out = NULL;
    if (strncmp(name, "python:", 7) != 0)
        return load_file(name, out, why, cap);
    if ((*out = hpy_installed(name)))
        return 0;
    snprintf(why, cap,
             "%s: no such Python policy (a class is handed to "
             "hetsim.run() as policy=TheClass)",
             name);
    return SIM_EINVAL;
}

int hpy_register_class(PyObject *cls, const char *name, const char *file,
                       char *why, size_t cap)
{
    const struct pol_ops *ops;
    const char *dot = strrchr(name, '.');
    return hpy_install(name, file, cls, dot ? dot + 1 : name + 7, &ops, why,
                       cap);
}
