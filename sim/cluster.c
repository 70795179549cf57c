/* cluster.c -- reading a cluster description (JSON) into a struct cluster.
 *
 * Built-in presets are JSON texts too (presets.c), so one parser with one set
 * of checks serves both. cJSON never leaves this file. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_internal.h"

#define CLUSTER_MAX_NODES 10000000
#define CLUSTER_MAX_GPUS_PER_NODE 1024
#define CLUSTER_MAX_FILE (64u << 20)
#define CLUSTER_MIN_SPEED 1e-6
#define CLUSTER_MAX_SPEED 1e6
#define CLUSTER_MAX_SLOWDOWN 1000.0

void sim_error_set(struct sim_error *err, const char *source, long line,
                   const char *fmt, ...)
{
    if (!err || err->text[0])
        return;
    snprintf(err->source, sizeof err->source, "%s", source ? source : "");
    err->line = line;
    err->column = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
}

/* Line of byte OFFSET in TEXT, counting from 1. */
static long line_of(const char *text, size_t offset)
{
    long line = 1;
    for (size_t i = 0; i < offset && text[i]; i++)
        line += text[i] == '\n';
    return line;
}

/* Where and why JSON TEXT failed to parse at byte OFF (cJSON's error
 * pointer): line and column from 1 into *LINE, *COL, and "trailing comma"
 * when a ',' stands before a closing '}' or ']' (pointing at the comma). */
void sim_json_failure(const char *text, size_t off, long *line, long *col,
                      char *why, size_t cap)
{
    size_t at = off, k = off;
    while (k > 0 && strchr(" \t\r\n", text[k - 1]))
        k--;
    size_t j = off;
    while (text[j] && strchr(" \t\r\n", text[j]))
        j++;
    if (k > 0 && text[k - 1] == ',' && (text[j] == '}' || text[j] == ']')) {
        at = k - 1;
        snprintf(why, cap, "invalid JSON: trailing comma before '%c'",
                 text[j]);
    } else if (text[off])
        snprintf(why, cap, "invalid JSON near '%c'", text[off]);
    else
        snprintf(why, cap, "invalid JSON: the text ends too early");
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < at && text[i]; i++) {
        *col = text[i] == '\n' ? 1 : *col + 1;
        *line += text[i] == '\n';
    }
}

/* Checks that OBJ has only keys from ALLOWED (NULL-terminated). */
static int check_keys(const cJSON *obj, const char *const *allowed,
                      const char *where, const char *src,
                      struct sim_error *err)
{
    if (!cJSON_IsObject(obj)) {
        sim_error_set(err, src, 0, "%s must be an object", where);
        return SIM_EPARSE;
    }
    for (const cJSON *k = obj->child; k; k = k->next) {
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], k->string) != 0)
            i++;
        if (!allowed[i]) {
            sim_error_set(err, src, 0, "%s: unknown key \"%s\"", where,
                          k->string);
            return SIM_EPARSE;
        }
        for (const cJSON *d = k->next; d; d = d->next) {
            if (strcmp(d->string, k->string) == 0) {
                sim_error_set(err, src, 0, "%s: key \"%s\" appears twice",
                              where, k->string);
                return SIM_EPARSE;
            }
        }
    }
    return 0;
}

/* Reads number KEY of OBJ into *out. Absent keys keep *out unless REQUIRED.
 * The value must be finite and >= MIN (> MIN when STRICT). */
static int get_number(const cJSON *obj, const char *key, int required,
                      double min, int strict, double *out, const char *where,
                      const char *src, struct sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required)
            return 0;
        sim_error_set(err, src, 0, "%s: missing \"%s\"", where, key);
        return SIM_EPARSE;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!isfinite(x) || x < min || (strict && x <= min)) {
        sim_error_set(err, src, 0, "%s.%s must be a number %s %g", where,
                      key, strict ? ">" : ">=", min);
        return SIM_EPARSE;
    }
    *out = x;
    return 0;
}

static int get_int(const cJSON *obj, const char *key, int required,
                   int32_t min, int32_t max, int32_t *out, const char *where,
                   const char *src, struct sim_error *err)
{
    double x = *out;
    int rc = get_number(obj, key, required, -INFINITY, 0, &x, where, src,
                        err);
    if (rc)
        return rc;
    if (x != floor(x) || x < min || x > max) {
        sim_error_set(err, src, 0, "%s.%s must be an integer from %d to %d",
                      where, key, min, max);
        return SIM_EPARSE;
    }
    *out = (int32_t)x;
    return 0;
}

/* Reads string KEY of OBJ into BUF of CAP bytes (non-empty, fits). */
static int get_string(const cJSON *obj, const char *key, int required,
                      char *buf, size_t cap, const char *where,
                      const char *src, struct sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required)
            return 0;
        sim_error_set(err, src, 0, "%s: missing \"%s\"", where, key);
        return SIM_EPARSE;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0] ||
        strlen(v->valuestring) >= cap) {
        sim_error_set(err, src, 0,
                      "%s.%s must be a non-empty string of at most %zu bytes",
                      where, key, cap - 1);
        return SIM_EPARSE;
    }
    memcpy(buf, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

static int parse_gpu_type(const cJSON *o, struct gpu_type *t, const char *w,
                          const char *src, struct sim_error *err)
{
    static const char *const keys[] = {
        "name",        "memory_mb",  "speed",         "tflops_fp32",
        "tflops_fp16", "mem_bw_gbs", "cost_per_hour", NULL};
    int rc = check_keys(o, keys, w, src, err);
    if (!rc)
        rc = get_string(o, "name", 1, t->name, sizeof t->name, w, src, err);
    if (!rc)
        rc = get_number(o, "memory_mb", 1, 0, 1, &t->memory_mb, w, src, err);
    if (!rc)
        rc = get_number(o, "speed", 1, 0, 1, &t->speed, w, src, err);
    if (!rc)
        rc = get_number(o, "tflops_fp32", 0, 0, 0, &t->tflops_fp32, w, src,
                        err);
    if (!rc)
        rc = get_number(o, "tflops_fp16", 0, 0, 0, &t->tflops_fp16, w, src,
                        err);
    if (!rc)
        rc = get_number(o, "mem_bw_gbs", 0, 0, 0, &t->mem_bw_gbs, w, src, err);
    if (!rc)
        rc = get_number(o, "cost_per_hour", 0, 0, 0, &t->cost_per_hour, w,
                        src, err);
    return rc;
}

static int parse_types(struct cluster *c, const cJSON *arr, const char *src,
                       struct sim_error *err)
{
    int n = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || n < 1 || n > SIM_MAX_GPU_TYPES) {
        sim_error_set(err, src, 0,
                      "gpu_types must be an array of 1 to %d GPU types",
                      SIM_MAX_GPU_TYPES);
        return SIM_EPARSE;
    }
    char where[64];
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        snprintf(where, sizeof where, "gpu_types[%d]", i);
        int rc = parse_gpu_type(o, &c->types[i], where, src, err);
        if (rc)
            return rc;
        for (int j = 0; j < i; j++) {
            if (strcmp(c->types[j].name, c->types[i].name) == 0) {
                sim_error_set(err, src, 0, "%s.name \"%s\" is used twice",
                              where, c->types[i].name);
                return SIM_EPARSE;
            }
        }
    }
    c->ntypes = n;
    return 0;
}

/* Reads the node groups and expands them into c->nodes. */
static int parse_nodes(struct cluster *c, const cJSON *arr, const char *src,
                       struct sim_error *err)
{
    static const char *const keys[] = {"gpu_type", "gpus_per_node", "count",
                                       NULL};
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) {
        sim_error_set(err, src, 0, "nodes must be a non-empty array");
        return SIM_EPARSE;
    }
    char where[64], tname[32];
    int64_t total_nodes = 0, total_gpus = 0;
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        snprintf(where, sizeof where, "nodes[%d]", i);
        int32_t per = 0, count = 1;
        int rc = check_keys(o, keys, where, src, err);
        if (!rc)
            rc = get_string(o, "gpu_type", 1, tname, sizeof tname, where,
                            src, err);
        if (!rc)
            rc = get_int(o, "gpus_per_node", 1, 1, CLUSTER_MAX_GPUS_PER_NODE,
                         &per, where, src, err);
        if (!rc)
            rc = get_int(o, "count", 0, 1, CLUSTER_MAX_NODES, &count, where,
                         src, err);
        if (rc)
            return rc;
        int32_t t = cluster_find_type(c, tname);
        if (t < 0) {
            sim_error_set(err, src, 0,
                          "%s.gpu_type \"%s\" is not in gpu_types", where,
                          tname);
            return SIM_EPARSE;
        }
        total_nodes += count;
        total_gpus += (int64_t)count * per;
        if (total_nodes > CLUSTER_MAX_NODES || total_gpus > INT32_MAX) {
            sim_error_set(err, src, 0, "%s: the cluster is too large", where);
            return SIM_EPARSE;
        }
        struct node *nodes =
            realloc(c->nodes, (size_t)total_nodes * sizeof *nodes);
        if (!nodes)
            return SIM_ENOMEM;
        c->nodes = nodes;
        for (int32_t k = 0; k < count; k++)
            nodes[c->nnodes++] = (struct node){t, per};
        struct gpu_type *gt = &c->types[t];
        gt->gpus += count * per;
        if (per > gt->max_per_node)
            gt->max_per_node = per;
    }
    c->total_gpus = (int32_t)total_gpus;
    return 0;
}

/* "restart_overhead_s": {"<job type>": seconds, ...} (optional). */
static int parse_overheads(struct cluster *c, const cJSON *obj,
                           const char *src, struct sim_error *err)
{
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj)) {
        sim_error_set(err, src, 0, "cluster.restart_overhead_s must be an "
                      "object of job type: seconds");
        return SIM_EPARSE;
    }
    int n = cJSON_GetArraySize(obj);
    c->overheads = calloc((size_t)(n > 0 ? n : 1), sizeof *c->overheads);
    if (!c->overheads)
        return SIM_ENOMEM;
    for (const cJSON *k = obj->child; k; k = k->next) {
        double x = cJSON_IsNumber(k) ? k->valuedouble : NAN;
        if (!(x >= 0 && x < 1e12) || !k->string[0] ||
            strlen(k->string) >= sizeof c->overheads->job_type) {
            sim_error_set(err, src, 0, "restart_overhead_s.\"%s\" must be "
                          "seconds from 0 to 1e12, under a job type of at "
                          "most 63 bytes", k->string);
            return SIM_EPARSE;
        }
        struct job_overhead *o = &c->overheads[c->noverheads++];
        snprintf(o->job_type, sizeof o->job_type, "%s", k->string);
        o->seconds = x;
    }
    return 0;
}

double cluster_job_overhead(const struct cluster *c, const char *job_type)
{
    for (int32_t i = 0; i < c->noverheads; i++)
        if (strcmp(c->overheads[i].job_type, job_type) == 0)
            return c->overheads[i].seconds;
    return -1;
}

static int parse_cluster(struct cluster *c, const cJSON *root,
                         const char *src, struct sim_error *err)
{
    static const char *const keys[] = {"name",  "reference_gpu",
                                       "gpu_types", "nodes",
                                       "spread_slowdown", "throughputs",
                                       "restart_overhead_s", NULL};
    int rc = check_keys(root, keys, "cluster", src, err);
    if (rc)
        return rc;
    snprintf(c->name, sizeof c->name, "cluster");
    rc = get_string(root, "name", 0, c->name, sizeof c->name, "cluster", src,
                    err);
    c->spread_slowdown = 1.1;
    if (!rc)
        rc = get_number(root, "spread_slowdown", 0, 1, 0, &c->spread_slowdown,
                        "cluster", src, err);
    if (!rc)
        rc = get_string(root, "throughputs", 0, c->throughputs,
                        sizeof c->throughputs, "cluster", src, err);
    if (!rc)
        rc = parse_overheads(c, cJSON_GetObjectItemCaseSensitive(
                                    root, "restart_overhead_s"),
                             src, err);
    if (!rc)
        rc = parse_types(c, cJSON_GetObjectItemCaseSensitive(root,
                                                             "gpu_types"),
                         src, err);
    if (!rc)
        rc = parse_nodes(c, cJSON_GetObjectItemCaseSensitive(root, "nodes"),
                         src, err);
    if (rc)
        return rc;
    char ref[32] = "";
    rc = get_string(root, "reference_gpu", 0, ref, sizeof ref, "cluster", src,
                    err);
    if (rc)
        return rc;
    c->reference = ref[0] ? cluster_find_type(c, ref) : 0;
    if (c->reference < 0) {
        sim_error_set(err, src, 0,
                      "cluster.reference_gpu \"%s\" is not in gpu_types", ref);
        return SIM_EPARSE;
    }
    if (c->spread_slowdown > CLUSTER_MAX_SLOWDOWN) {
        sim_error_set(err, src, 0, "cluster.spread_slowdown must be from 1 "
                      "to %g", CLUSTER_MAX_SLOWDOWN);
        return SIM_EPARSE;
    }
    for (int32_t t = 0; t < c->ntypes; t++) {
        /* Bounded so that every ratio of speeds, times the spread penalty,
         * stays a finite number of seconds. */
        if (c->types[t].speed < CLUSTER_MIN_SPEED ||
            c->types[t].speed > CLUSTER_MAX_SPEED) {
            sim_error_set(err, src, 0, "gpu_types[%d].speed must be from %g "
                          "to %g", t, CLUSTER_MIN_SPEED, CLUSTER_MAX_SPEED);
            return SIM_EPARSE;
        }
        if (c->types[t].gpus == 0) {
            sim_error_set(err, src, 0,
                          "gpu_types[%d] \"%s\" has no nodes: add a node "
                          "group or remove the type",
                          t, c->types[t].name);
            return SIM_EPARSE;
        }
    }
    return 0;
}

int cluster_parse(const char *text, const char *src, struct cluster **out,
                      struct sim_error *err)
{
    *out = NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        size_t off = end ? (size_t)(end - text) : 0;
        long line, col;
        char why[128];
        sim_json_failure(text, off, &line, &col, why, sizeof why);
        sim_error_set(err, src, line, "%s", why);
        if (err)
            err->column = col;
        return SIM_EPARSE;
    }
    struct cluster *c = calloc(1, sizeof *c);
    int rc = c ? parse_cluster(c, root, src, err) : SIM_ENOMEM;
    cJSON_Delete(root);
    if (rc) {
        cluster_destroy(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* A relative "throughputs" path is relative to the cluster file. */
static int resolve_beside(struct cluster *c, const char *path,
                          struct sim_error *err)
{
    const char *slash = strrchr(path, '/');
    if (!c->throughputs[0] || c->throughputs[0] == '/' || !slash)
        return 0;
    char full[sizeof c->throughputs];
    int n = snprintf(full, sizeof full, "%.*s/%s", (int)(slash - path), path,
                     c->throughputs);
    if (n < 0 || (size_t)n >= sizeof full) {
        sim_error_set(err, path, 0, "cluster.throughputs: path too long");
        cluster_destroy(c);
        return SIM_EPARSE;
    }
    memcpy(c->throughputs, full, (size_t)n + 1);
    return 0;
}

int cluster_load(const char *path, struct cluster **out, struct sim_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_error_set(err, path, 0, "%s", strerror(errno));
        return SIM_EIO;
    }
    char *text = malloc(CLUSTER_MAX_FILE + 1);
    size_t n = text ? fread(text, 1, CLUSTER_MAX_FILE + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!text)
        return SIM_ENOMEM;
    int rc = 0;
    const char *nul;
    if (bad) {
        sim_error_set(err, path, 0, "read error");
        rc = SIM_EIO;
    } else if (n > CLUSTER_MAX_FILE) {
        sim_error_set(err, path, 0, "file is larger than %u MiB",
                      CLUSTER_MAX_FILE >> 20);
        rc = SIM_EPARSE;
    } else if ((nul = memchr(text, '\0', n)) != NULL) {
        sim_error_set(err, path, line_of(text, (size_t)(nul - text)),
                      "NUL byte in JSON text");
        rc = SIM_EPARSE;
    } else {
        text[n] = '\0';
        rc = cluster_parse(text, path, out, err);
        if (rc == 0 && (rc = resolve_beside(*out, path, err)) != 0)
            *out = NULL;
    }
    free(text);
    return rc;
}

int32_t cluster_find_type(const struct cluster *c, const char *name)
{
    for (int32_t t = 0; t < c->ntypes; t++)
        if (strcmp(c->types[t].name, name) == 0)
            return t;
    return -1;
}

void cluster_destroy(struct cluster *c)
{
    if (!c)
        return;
    free(c->nodes);
    free(c->overheads);
    free(c);
}
