/* extension.c -- `import hetsim`: the module as a CPython extension
 * (build/python/hetsim.so), with hetsim.run() calling cli_run. */
#include "hpy_internal.h" /* Python.h first */

#include "cli.h"

PyMODINIT_FUNC PyInit_hetsim(void);

PyMODINIT_FUNC PyInit_hetsim(void)
{
    hpy_cli_run = cli_run;
    return hpy_module_init();
}
