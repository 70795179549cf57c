/* sweep_generator.c -- a SPEC's "generator" checked as `hetsim trace
 * generate` would check it, before any cell runs: parameters that cannot
 * give a workload ("jobs": 0, durations beyond 1e15 s, MMPP states of
 * 1e-300 s) are refused at validation with SPEC:LINE, not by a failed cell
 * or a generator that never ends. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "sweep_spec_internal.h"

/* VALUE (option text) as a number into *OUT; -1 when it is none. */
static int number(const char *value, double *out)
{
    char *end;
    *out = strtod(value, &end);
    return end == value || *end ? -1 : 0;
}

static int apply(const struct spec_ctx *x, const cJSON *c, const char *value,
                 struct trace_gen_spec *g)
{
    struct trace_error err = {0};
    const char *k = c->string;
    double v = 0;
    if (strcmp(k, "jobs") == 0) {
        if (number(value, &v) || v != floor(v) || v < 1 || v > UINT32_MAX)
            return spec_bad(x, c,
                            "generator.jobs must be a whole number from "
                            "1 to 4294967295, got %s",
                            value);
        g->njobs = (size_t)v;
    } else if (strcmp(k, "arrivals") == 0) {
        if (strcmp(value, "poisson") && strcmp(value, "mmpp"))
            return spec_bad(x, c, "generator.arrivals must be poisson or mmpp");
        g->arrivals =
            strcmp(value, "mmpp") ? TRACE_GEN_POISSON : TRACE_GEN_MMPP;
    } else if (strncmp(k, "burst-", 6) == 0) {
        if (number(value, &v) || !isfinite(v))
            return spec_bad(x, c, "generator.%s must be a number", k);
        if (strcmp(k, "burst-rate-ratio") == 0)
            g->mmpp.rate_ratio = v;
        else if (strcmp(k, "burst-fraction") == 0)
            g->mmpp.high_fraction = v;
        else
            g->mmpp.high_mean_s = v;
    } else if (strcmp(k, "durations") == 0 &&
               strncmp(value, "resample:", 9) != 0) {
        if (trace_gen_parse_durations(value, &g->durations, &err))
            return spec_bad(x, c, "generator.durations: %s", err.text);
    } else if (strcmp(k, "gpus") == 0) {
        if (trace_gen_parse_gpus(value, &g->gpus, &err))
            return spec_bad(x, c, "generator.gpus: %s", err.text);
    }
    return 0;
}

int spec_check_generator(const struct spec_ctx *x, const cJSON *obj)
{
    struct trace_gen_spec g;
    trace_gen_defaults(&g);
    for (const cJSON *c = obj->child; c; c = c->next) {
        char value[4096];
        if (strcmp(c->string, "load") == 0 ||
            spec_option_text(x, c, c->string, value, sizeof value) != 0)
            continue; /* the caller reports a bad value */
        int rc = apply(x, c, value, &g);
        if (rc)
            return rc;
    }
    struct trace_error err = {0};
    if (trace_gen_check(&g, &err) != 0)
        return spec_bad(x, obj, "generator: %s", err.text);
    return 0;
}
