/* name.c -- which policy names are Python ones (hetsim_python.h); no
 * Python here, so that the program can tell without loading CPython. */
#include <string.h>

#include "hetsim_python.h"

int hpy_is_policy(const char *name)
{
    size_t len = strlen(name);
    return strncmp(name, "python:", 7) == 0 ||
           (len > 3 && strcmp(name + len - 3, ".py") == 0);
}
