/* hetsim_python.h -- policies written in Python (`--policy mine.py`) and
 * the `hetsim` Python module (`import hetsim`).
 *
 * A Python policy is a file that defines `class Policy` (docs/python.md).
 * hpy_load_policy() runs the file in an embedded CPython (started on first
 * use, or the one already running when hetsim is imported as a module) and
 * turns the class into a plugin table of hetsim/policy_abi.h, registered
 * with pol_plugin_register(): the policy then reads and decides through the
 * very api a C plugin gets, with its checks. */
#ifndef HETSIM_PYTHON_H
#define HETSIM_PYTHON_H

#include <stddef.h>

#include "policy.h"

/* Whether NAME names a Python policy: a file ending in ".py", or a class
 * handed to hetsim.run() ("python:MODULE.CLASS"). */
int hpy_is_policy(const char *name);

/* Loads the Python policy NAME and sets *out to its ops, valid for the life
 * of the process (loading the same file again reloads it into the same
 * ops). 0, or SIM_EIO (no such file), SIM_EPARSE (the file does not run or
 * defines no usable Policy class), SIM_EINVAL (too many policies loaded)
 * or SIM_ENOMEM, with WHY (CAP bytes) naming the file and line. */
int hpy_load_policy(const char *name, const struct pol_ops **out, char *why,
                    size_t cap);

#endif
