/* sweep_spec.c -- the SPEC of `hetsim sweep`: a JSON object that lists each
 * dimension of the cross product. Strict: an unknown key, a wrong type or a
 * bad value is `FILE:LINE: what is wrong`, exit 3, before anything runs. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <unistd.h>

#include "cli.h"
#include "sweep_internal.h"
#include "sweep_spec_internal.h"

#define SPEC_MAX_FILE (1u << 20)

int spec_bad(const struct spec_ctx *x, const cJSON *item, const char *fmt,
             ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cli_error_at(x->source, item ? cli_json_line(&x->lines, item) : 0, 0,
                 text);
    return CLI_BAD_INPUT;
}

char *spec_dup(const char *text, int *oom)
{
    char *p = strdup(text);
    if (!p)
        *oom = 1;
    return p;
}

/* PATH as opened from here: relative paths are relative to the SPEC. */
char *spec_beside(const char *spec, const char *path, int *oom)
{
    const char *slash = strrchr(spec, '/');
    if (path[0] == '/' || !slash)
        return spec_dup(path, oom);
    size_t len = (size_t)(slash - spec) + 1 + strlen(path) + 1;
    char *p = malloc(len);
    if (!p) {
        *oom = 1;
        return NULL;
    }
    snprintf(p, len, "%.*s/%s", (int)(slash - spec), spec, path);
    return p;
}

/* A file the SPEC names must be there now, not fail in every cell. */
static int readable(const struct spec_ctx *x, const cJSON *item,
                    const char *path)
{
    if (!path || access(path, R_OK) == 0)
        return 0;
    return spec_bad(x, item, "%s: %s", path, strerror(errno));
}

/* ITEM's value as option text: a string, or a number in its shortest
 * exact form. NULL (after a message) when it is neither. */
int spec_option_text(const struct spec_ctx *x, const cJSON *item,
                     const char *where, char *buf, size_t cap)
{
    if (cJSON_IsString(item) && item->valuestring[0]) {
        if (strlen(item->valuestring) >= cap)
            return spec_bad(x, item, "%s: value too long", where);
        snprintf(buf, cap, "%s", item->valuestring);
        return 0;
    }
    if (cJSON_IsNumber(item) && isfinite(item->valuedouble)) {
        cli_fmt_double(buf, item->valuedouble);
        return 0;
    }
    return spec_bad(x, item, "%s must be a string or a number", where);
}

/* A non-empty array of at most SWEEP_MAX_ITEMS distinct non-empty strings
 * into OUT (strdup'ed). */
static int strings(const struct spec_ctx *x, const cJSON *arr,
                   const char *key, char **out, size_t *n, int *oom)
{
    if (!cJSON_IsArray(arr) || !arr->child)
        return spec_bad(x, arr, "\"%s\" must be a non-empty array of strings",
                   key);
    for (const cJSON *c = arr->child; c; c = c->next) {
        if (!cJSON_IsString(c) || !c->valuestring[0])
            return spec_bad(x, c, "\"%s\": each entry must be a non-empty string",
                       key);
        if (*n == SWEEP_MAX_ITEMS)
            return spec_bad(x, c, "\"%s\": at most %d entries", key,
                       SWEEP_MAX_ITEMS);
        for (size_t i = 0; i < *n; i++)
            if (strcmp(out[i], c->valuestring) == 0)
                return spec_bad(x, c, "\"%s\": \"%s\" listed twice", key,
                           c->valuestring);
        out[(*n)++] = spec_dup(c->valuestring, oom);
    }
    return 0;
}

static int parse_traces(struct spec_ctx *x, const cJSON *arr, int *oom)
{
    char *paths[SWEEP_MAX_ITEMS];
    size_t n = 0;
    int rc = strings(x, arr, "traces", paths, &n, oom);
    const cJSON *item = arr->child;
    for (size_t i = 0; i < n; i++, item = item->next) {
        struct sweep_workload *w = &x->s->work[x->s->nwork++];
        w->label = paths[i];
        w->path = w->label ? spec_beside(x->source, w->label, oom) : NULL;
        w->load = NAN;
        if (!rc)
            rc = readable(x, item, w->path);
    }
    return rc;
}

/* Options of `hetsim trace generate` a SPEC may set; the sweep sets
 * --seed, --cluster, --load and -o itself. */
static const char *const gen_options[] = {
    "jobs", "arrivals", "burst-rate-ratio", "burst-fraction", "burst-mean-s",
    "durations", "gpus", "job-types-from", "worker", NULL};

static int parse_loads(struct spec_ctx *x, const cJSON *arr, int *oom)
{
    if (!cJSON_IsArray(arr) || !arr->child)
        return spec_bad(x, arr, "generator.load must be a non-empty array of "
                   "numbers");
    for (const cJSON *c = arr->child; c; c = c->next) {
        if (!cJSON_IsNumber(c) || !(c->valuedouble > 0) ||
            !(c->valuedouble <= 100))
            return spec_bad(x, c, "generator.load: each load must be a number "
                       "> 0 and <= 100");
        if (x->s->nwork == SWEEP_MAX_ITEMS)
            return spec_bad(x, c, "at most %d traces and loads in all",
                       SWEEP_MAX_ITEMS);
        for (size_t i = 0; i < x->s->nwork; i++)
            if (x->s->work[i].load == c->valuedouble)
                return spec_bad(x, c, "generator.load: %g listed twice",
                           c->valuedouble);
        struct sweep_workload *w = &x->s->work[x->s->nwork++];
        w->label = spec_dup("generated", oom);
        w->load = c->valuedouble;
    }
    return 0;
}

static int parse_generator(struct spec_ctx *x, const cJSON *obj, int *oom)
{
    if (!cJSON_IsObject(obj))
        return spec_bad(x, obj, "\"generator\" must be an object of `hetsim trace "
                   "generate` options and \"load\"");
    const cJSON *loads = NULL;
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (strcmp(c->string, "load") == 0) {
            loads = c;
            continue;
        }
        size_t i = 0;
        while (gen_options[i] && strcmp(gen_options[i], c->string) != 0)
            i++;
        if (!gen_options[i])
            return spec_bad(x, c, "generator: unknown key \"%s\" (known: load, "
                       "jobs, arrivals, burst-rate-ratio, burst-fraction, "
                       "burst-mean-s, durations, gpus, job-types-from, "
                       "worker)", c->string);
        char value[4096], where[64];
        snprintf(where, sizeof where, "generator.%s", c->string);
        int rc = spec_option_text(x, c, where, value, sizeof value);
        if (rc)
            return rc;
        struct sweep_spec *s = x->s;
        /* Files are named relative to the SPEC, like its traces. */
        char *v = NULL;
        if (strcmp(c->string, "job-types-from") == 0)
            v = spec_beside(x->source, value, oom);
        else if (strcmp(c->string, "durations") == 0 &&
                 strncmp(value, "resample:", 9) == 0) {
            char *path = spec_beside(x->source, value + 9, oom);
            size_t len = path ? strlen(path) + 10 : 0;
            if (path && (v = malloc(len)) != NULL)
                snprintf(v, len, "resample:%s", path);
            *oom |= !v;
            free(path);
        } else
            v = spec_dup(value, oom);
        s->gen_keys[s->ngen] = spec_dup(c->string, oom);
        s->gen_values[s->ngen++] = v;
    }
    if (!loads)
        return spec_bad(x, obj, "generator: missing \"load\": [numbers]");
    int rc = spec_check_generator(x, obj);
    return rc ? rc : parse_loads(x, loads, oom);
}

static int is_cluster_name(const char *name)
{
    for (size_t i = 0; cluster_preset_name(i); i++)
        if (strcmp(cluster_preset_name(i), name) == 0)
            return 1;
    return 0;
}

static int parse_clusters(struct spec_ctx *x, const cJSON *arr, int *oom)
{
    struct sweep_spec *s = x->s;
    int rc = strings(x, arr, "clusters", s->clusters, &s->nclusters, oom);
    for (size_t i = 0; i < s->nclusters && !rc; i++) {
        const char *c = s->clusters[i];
        if (!c)
            break;
        if (strchr(c, '/') || strstr(c, ".json")) {
            s->cluster_args[i] = spec_beside(x->source, c, oom);
            rc = readable(x, arr, s->cluster_args[i]);
        }
        else if (is_cluster_name(c) || strncmp(c, "alibaba2023:", 12) == 0)
            s->cluster_args[i] = spec_dup(c, oom);
        else
            rc = spec_bad(x, arr, "clusters: \"%s\" is neither a built-in "
                     "cluster (`hetsim clusters`) nor a .json file", c);
    }
    return rc;
}

static int parse_estimates(struct spec_ctx *x, const cJSON *arr, int *oom)
{
    struct sweep_spec *s = x->s;
    int rc = strings(x, arr, "estimates", s->estimates, &s->nestimates, oom);
    for (size_t i = 0; i < s->nestimates && !rc && s->estimates[i]; i++) {
        const char *e = s->estimates[i];
        char *end;
        double v = strncmp(e, "noisy:", 6) == 0 ? strtod(e + 6, &end) : -1;
        int ok = strcmp(e, "none") == 0 || strcmp(e, "oracle") == 0 ||
                 strcmp(e, "trace") == 0 ||
                 (v >= 0 && v <= 10 && end != e + 6 && !*end) ||
                 strcmp(e, "history") == 0 || strcmp(e, "history:vc") == 0 ||
                 strcmp(e, "history:user") == 0 ||
                 (strncmp(e, "predictor:", 10) == 0 && e[10] && e[10] != ',');
        if (!ok)
            rc = spec_bad(x, arr, "estimates: \"%s\" is not none, oracle, trace, "
                     "noisy:SIGMA (SIGMA from 0 to 10), history[:vc|:user] "
                     "or predictor:MODEL.bin[,memory=MODEL2.bin]", e);
    }
    return rc;
}

static int parse_seeds(struct spec_ctx *x, const cJSON *item)
{
    struct sweep_spec *s = x->s;
    double v = cJSON_IsNumber(item) ? item->valuedouble : 0;
    if (cJSON_IsNumber(item)) {
        if (v != floor(v) || v < 1 || v > SWEEP_MAX_SEEDS)
            return spec_bad(x, item, "\"seeds\": a count must be a whole number "
                       "from 1 to %d", SWEEP_MAX_SEEDS);
        for (s->nseeds = 0; s->nseeds < (size_t)v; s->nseeds++)
            s->seeds[s->nseeds] = s->nseeds + 1;
        return 0;
    }
    if (!cJSON_IsArray(item) || !item->child)
        return spec_bad(x, item, "\"seeds\" must be a count N (seeds 1..N) or a "
                   "non-empty array of whole numbers");
    for (const cJSON *c = item->child; c; c = c->next) {
        v = cJSON_IsNumber(c) ? c->valuedouble : -1;
        /* Every random generator of hetsim takes 32-bit seeds: a larger
         * one would silently equal another. */
        if (v != floor(v) || v < 0 || v > 4294967295.0)
            return spec_bad(x, c, "seeds: each seed must be a whole number "
                                  "from 0 to 4294967295");
        if (s->nseeds == SWEEP_MAX_SEEDS)
            return spec_bad(x, c, "seeds: at most %d", SWEEP_MAX_SEEDS);
        for (size_t i = 0; i < s->nseeds; i++)
            if (s->seeds[i] == (uint64_t)v)
                return spec_bad(x, c, "seeds: %.0f listed twice", v);
        s->seeds[s->nseeds++] = (uint64_t)v;
    }
    return 0;
}

static int parse_path_key(struct spec_ctx *x, const cJSON *c, char **out,
                          int resolve, int *oom)
{
    if (!cJSON_IsString(c) || !c->valuestring[0])
        return spec_bad(x, c, "\"%s\" must be a non-empty string", c->string);
    *out = resolve ? spec_beside(x->source, c->valuestring, oom)
                   : spec_dup(c->valuestring, oom);
    return 0;
}

static int parse_key(struct spec_ctx *x, const cJSON *c, int *oom)
{
    const char *k = c->string;
    if (strcmp(k, "traces") == 0)
        return parse_traces(x, c, oom);
    if (strcmp(k, "generator") == 0)
        return parse_generator(x, c, oom);
    if (strcmp(k, "clusters") == 0)
        return parse_clusters(x, c, oom);
    if (strcmp(k, "policies") == 0)
        return spec_parse_policies(x, c, oom);
    if (strcmp(k, "estimates") == 0)
        return parse_estimates(x, c, oom);
    if (strcmp(k, "seeds") == 0)
        return parse_seeds(x, c);
    if (strcmp(k, "throughputs") == 0) {
        int rc = parse_path_key(x, c, &x->s->throughputs, 1, oom);
        if (!rc)
            rc = readable(x, c, x->s->throughputs);
        return rc ? rc : parse_path_key(x, c, &x->s->throughputs_label, 0,
                                        oom);
    }
    if (strcmp(k, "format") == 0)
        return parse_path_key(x, c, &x->s->format, 0, oom);
    return spec_bad(x, c, "unknown key \"%s\" (known: traces, generator, "
               "clusters, policies, estimates, seeds, throughputs, format)",
               k);
}

static int parse_root(struct spec_ctx *x, const cJSON *root)
{
    if (!cJSON_IsObject(root))
        return spec_bad(x, root, "a sweep SPEC must be a JSON object");
    int oom = 0, rc = 0;
    /* "traces" first, so that generated loads follow the trace files
     * wherever the keys stand. */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "traces");
    if (t)
        rc = parse_traces(x, t, &oom);
    for (const cJSON *c = root->child; c && !rc && !oom; c = c->next)
        if (strcmp(c->string, "traces") != 0)
            rc = parse_key(x, c, &oom);
    if (oom) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    if (rc)
        return rc;
    struct sweep_spec *s = x->s;
    if (!s->nwork)
        return spec_bad(x, root, "missing \"traces\" or \"generator\"");
    if (!s->nclusters)
        return spec_bad(x, root, "missing \"clusters\"");
    if (!s->npolicies)
        return spec_bad(x, root, "missing \"policies\"");
    if (!s->nseeds)
        return spec_bad(x, root, "missing \"seeds\"");
    if (!s->nestimates && !(s->estimates[s->nestimates++] = strdup("none"))) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    double cells = (double)s->nwork * (double)s->nclusters *
                   (double)s->npolicies * (double)s->nestimates *
                   (double)s->nseeds;
    if (cells > SWEEP_MAX_CELLS)
        return spec_bad(x, root, "%.0f cells; a sweep has at most %d (split it)",
                   cells, SWEEP_MAX_CELLS);
    return CLI_OK;
}

int sweep_spec_load(const char *path, struct sweep_spec *s)
{
    memset(s, 0, sizeof *s);
    char *text = cli_read_text(path, SPEC_MAX_FILE);
    if (!text) {
        cli_error("%s: %s", path, errno == EFBIG ? "larger than 1 MiB"
                                                 : strerror(errno));
        return errno == ENOMEM ? CLI_FAILURE : CLI_BAD_INPUT;
    }
    struct spec_ctx x = {.source = path, .s = s};
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    int rc;
    if (!root) {
        long line, col;
        char why[128];
        sim_json_failure(text, end ? (size_t)(end - text) : 0, &line, &col,
                         why, sizeof why);
        cli_error_at(path, line, col, why);
        rc = CLI_BAD_INPUT;
    } else if (cli_json_lines_build(&x.lines, text, root) != 0) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    } else {
        s->source = strdup(path);
        rc = parse_root(&x, root);
    }
    cli_json_lines_free(&x.lines);
    cJSON_Delete(root);
    free(text);
    return rc;
}

void sweep_spec_free(struct sweep_spec *s)
{
    free(s->source);
    for (size_t i = 0; i < s->nwork; i++) {
        free(s->work[i].label);
        free(s->work[i].path);
    }
    for (size_t i = 0; i < s->ngen; i++) {
        free(s->gen_keys[i]);
        free(s->gen_values[i]);
    }
    for (size_t i = 0; i < s->nclusters; i++) {
        free(s->clusters[i]);
        free(s->cluster_args[i]);
    }
    for (size_t i = 0; i < s->npolicies; i++) {
        struct sweep_policy *p = &s->policies[i];
        free(p->label);
        free(p->name);
        free(p->placement);
        free(p->backfill);
        for (size_t k = 0; k < p->nopts; k++) {
            free(p->keys[k]);
            free(p->values[k]);
        }
    }
    for (size_t i = 0; i < s->nestimates; i++)
        free(s->estimates[i]);
    free(s->throughputs);
    free(s->throughputs_label);
    free(s->format);
    memset(s, 0, sizeof *s);
}
