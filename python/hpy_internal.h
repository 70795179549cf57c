/* hpy_internal.h -- shared by the files of python/ only. */
#ifndef HETSIM_HPY_INTERNAL_H
#define HETSIM_HPY_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "hetsim/policy_abi.h"
#include "hetsim_python.h"

/* `sim`: the api of policy_abi.h as methods; valid during a hook call. */
typedef struct {
    PyObject_HEAD const struct hetsim_policy_api *api;
    struct hetsim_sim *s;
    long njobs, ntypes, nnodes; /* constant for a run */
} hpy_sim;

/* A placement: GPUs for one job (struct hetsim_placement). */
#define HPY_INLINE_SEGS 4
typedef struct {
    PyObject_HEAD int32_t gpu_type;
    int32_t nseg;
    struct hetsim_seg *seg; /* (nseg): inl or malloc'd */
    struct hetsim_seg inl[HPY_INLINE_SEGS];
} hpy_placement;

extern PyTypeObject hpy_sim_type;
extern PyTypeObject hpy_placement_type;
extern PyTypeObject hpy_job_type;
extern PyObject *hpy_illegal_decision; /* hetsim.IllegalDecision */

/* A new sim object for the run of API with NJOBS jobs (sim.c). */
hpy_sim *hpy_sim_new(const struct hetsim_policy_api *api, struct hetsim_sim *s);

/* Readies the types and the exception; 0 or -1 with a Python error. */
int hpy_types_ready(void);

/* The module `hetsim` (module.c); run() calls hpy_cli_run, set by the
 * extension module (extension.c), NULL inside the hetsim program. */
PyObject *hpy_module_init(void);
extern int (*hpy_cli_run)(int argc, char **argv);

/* Starts the interpreter if none runs and readies our types and helpers
 * (pyerr.c); 0 or SIM_ENOMEM with WHY. hpy_finalize ends what we started. */
int hpy_ensure_python(char *why, size_t cap);
void hpy_finalize(void);
PyObject *hpy_helper(const char *name); /* borrowed, or NULL */

/* Takes the pending Python exception: its headline ("FILE:LINE: Type:
 * message") into BUF, and the exception itself into *OUT when OUT. */
void hpy_error_text(char *buf, size_t cap, PyObject **out);

/* Takes the pending exception of a policy: the headline into HEAD, and
 * the exception told (headline and traceback, on stderr) or kept for
 * hetsim.run() (hpy_keep_errors). */
void hpy_report(char *head, size_t cap);

/* Makes CLS (a strong ref is kept) the policy KEY (a file's real path, or
 * "python:MOD.CLASS"), FILE in messages, named NAME unless the class says;
 * loading KEY again refills its slot. 0 or a SIM_E* code with WHY. */
int hpy_install(const char *key, const char *file, PyObject *cls,
                const char *name, const struct pol_ops **out, char *why,
                size_t cap);
const struct pol_ops *hpy_installed(const char *key); /* or NULL */

/* Drops the classes of the loaded policies (host.c). */
void hpy_host_clear(void);

/* Makes a policy of class CLS (a strong ref is kept) under NAME; the
 * module's hetsim.run() uses it for classes (host.c). */
int hpy_register_class(PyObject *cls, const char *name, const char *file,
                       char *why, size_t cap);

/* When set (by hetsim.run()), an exception a policy raises is kept for the
 * caller instead of printed: hpy_take_error() hands it over (or NULL). */
void hpy_keep_errors(int keep);
PyObject *hpy_take_error(void);

#endif
