/* cases.c -- the runner of reader cases as data, in the .expect language of
 * cases.h, and the helpers the traces suite shares. */
#include <criterion/criterion.h>
#include "cases.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CASES 512

/* What one case read. */
union case_object {
    struct trace *trace;
    struct trace_nodes *nodes;
    struct trace_throughputs *throughputs;
};

/* A field of a record: 'f' with d, 'i' with i, or 's' with s. */
struct field {
    int kind;
    double d;
    int64_t i;
    const char *s;
};

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names (without ".ext") of the files of dir ending in ".ext", sorted, each
 * malloc'd; returns the count. */
static size_t list_cases(const char *dir, const char *ext, char **names)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    size_t n = 0, k = strlen(ext);
    cr_assert_not_null(d, "cannot open %s: %s", dir, strerror(errno));
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len > k + 1 && ent->d_name[len - k - 1] == '.' &&
            strcmp(ent->d_name + len - k, ext) == 0) {
            cr_assert_lt(n, MAX_CASES);
            names[n] = strdup(ent->d_name);
            names[n++][len - k - 1] = '\0';
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    return n;
}

/* Turns \n \r \t \\ escapes into their bytes. */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '\\' && r[1] && *++r != '\\')
            *w++ = *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r == 't' ? '\t' : *r;
        else
            *w++ = *r;
    }
    *w = '\0';
}

static struct field job_field(const struct trace *t, size_t k, const char *name)
{
    const struct trace_job *j = &t->jobs[k];
    /* clang-format off */
#define DBL(m) {#m, 'f', j->m, 0}
#define INT(m) {#m, 'i', 0, j->m}
#define STR(name, m) {name, 's', 0, j->m}
    const struct { const char *name; int kind; double d; int64_t i; } f[] = {
        DBL(submit_time), DBL(duration), DBL(gpu_mem_mb), DBL(params_m),
        DBL(learning_rate), DBL(est_duration), DBL(deadline), DBL(weight),
        DBL(slo), DBL(host_mem_mb), INT(iterations), INT(num_gpus),
        INT(gpu_milli), INT(priority), INT(batch_size), INT(layers),
        INT(input_dim), INT(cpu_milli), INT(line), STR("job_id", id),
        STR("job_type", job_type), STR("gpu_type", gpu_types),
        STR("user", user), STR("vc", vc), STR("model", model),
        STR("precision", precision), STR("optimizer", optimizer),
        STR("qos", qos), STR("status", status),
        {"gpu_util_peak", 'f', j->use_peak[TRACE_USE_GPU_UTIL], 0},
        {"gpu_util_burst", 'f', j->use_burst[TRACE_USE_GPU_UTIL], 0},
        {"gpu_mem_util_peak", 'f', j->use_peak[TRACE_USE_GPU_MEM_UTIL], 0},
        {"gpu_mem_util_burst", 'f', j->use_burst[TRACE_USE_GPU_MEM_UTIL], 0},
        {"gpu_mem_peak", 'f', j->use_peak[TRACE_USE_GPU_MEM], 0},
        {"gpu_mem_burst", 'f', j->use_burst[TRACE_USE_GPU_MEM], 0},
        {"cpu_util_peak", 'f', j->use_peak[TRACE_USE_CPU_UTIL], 0},
        {"cpu_util_burst", 'f', j->use_burst[TRACE_USE_CPU_UTIL], 0},
    };
#undef DBL
#undef INT
#undef STR
    /* clang-format on */
    for (size_t n = 0; n < sizeof f / sizeof f[0]; n++)
        if (strcmp(f[n].name, name) == 0)
            return (struct field){
                f[n].kind, f[n].d, f[n].i,
                f[n].kind == 's' ? trace_str(t, (uint32_t)f[n].i) : NULL};
    cr_assert_fail("unknown job field %s", name);
    return (struct field){0, 0, 0, NULL};
}

static struct field node_field(const struct trace_node *n, const char *name)
{
    if (strcmp(name, "name") == 0 || strcmp(name, "model") == 0)
        return (struct field){'s', 0, 0, name[0] == 'n' ? n->name : n->model};
    if (strcmp(name, "gpus") == 0 || strcmp(name, "cpu_milli") == 0)
        return (struct field){'i', 0, name[0] == 'g' ? n->gpus : n->cpu_milli,
                              NULL};
    cr_assert_str_eq(name, "memory_mib", "unknown node field %s", name);
    return (struct field){'f', n->memory_mib, 0, NULL};
}

/* Records of a valid case: jobs of a trace or nodes of a node list. */
static size_t count_records(const struct case_target *r,
                            const union case_object *o)
{
    return r->kind == CASE_NODES ? o->nodes->n : o->trace->njobs;
}

static struct field get_field(const struct case_target *r,
                              const union case_object *o, size_t k,
                              const char *name)
{
    return r->kind == CASE_NODES ? node_field(&o->nodes->nodes[k], name)
                                 : job_field(o->trace, k, name);
}

/* Checks "L:C: TEXT" against an error record. */
static void expect_error(const struct trace_error *e, const char *spec,
                         const char *where)
{
    long line, column;
    int used = 0;
    cr_assert_eq(sscanf(spec, "%ld:%ld:%n", &line, &column, &used), 2,
                 "%s: bad expectation \"%s\"", where, spec);
    const char *text = spec + used + (spec[used] == ' ');
    cr_expect(e->line == line && e->column == column && strstr(e->text, text),
              "%s: got %ld:%ld: %s, expected %s", where, e->line, e->column,
              e->text, spec);
}

static void expect_near(double got, const char *want, const char *where)
{
    double w = strtod(want, NULL);
    cr_expect(fabs(got - w) <= 1e-12 * fabs(w), "%s: got %.17g", where, got);
}

/* "I FIELD VALUE" of num (str set: of str). */
static void expect_field(const struct case_target *r,
                         const union case_object *o, char *args, int str,
                         const char *where)
{
    char *idx = strtok(args, " "), *name = strtok(NULL, " ");
    char *value = strtok(NULL, ""), empty[1] = "";
    size_t n = count_records(r, o);
    double want;
    cr_assert(idx && name, "%s: bad line", where);
    long k = strtol(idx, NULL, 10);
    k = k < 0 ? (long)n + k : k;
    cr_assert(k >= 0 && (size_t)k < n, "%s: record %ld of %zu", where, k, n);
    value = value ? value : empty;
    struct field f = get_field(r, o, (size_t)k, name);
    cr_assert_eq(f.kind == 's', str, "%s: %s is a %s field", where, name,
                 str ? "numeric" : "text");
    switch (f.kind) {
    case 'f':
        want = strcmp(value, "nan") == 0 ? NAN : strtod(value, NULL);
        cr_expect(isnan(want) ? isnan(f.d)
                              : memcmp(&f.d, &want, sizeof want) == 0,
                  "%s: %s is %.17g, expected %s", where, name, f.d, value);
        break;
    case 'i':
        cr_expect_eq(f.i, strtoll(value, NULL, 10), "%s: %s is %lld", where,
                     name, (long long)f.i);
        break;
    default:
        unescape(value);
        cr_expect_str_eq(f.s, value, "%s: %s is \"%s\"", where, name, f.s);
    }
}

/* "FIELD VALUE" of sum, or "MODEL N" of model_gpus (model set). */
static void expect_sum(const struct case_target *r, const union case_object *o,
                       char *args, int model, const char *where)
{
    char *name = strtok(args, " "), *value = strtok(NULL, " ");
    double sum = 0;
    int64_t isum = 0;
    int exact = 1;
    cr_assert(name && value, "%s: bad line", where);
    for (size_t k = 0; k < count_records(r, o); k++) {
        if (model && strcmp(o->nodes->nodes[k].model, name) != 0)
            continue;
        struct field f = get_field(r, o, k, model ? "gpus" : name);
        cr_assert_neq(f.kind, 's', "%s: %s is not a number", where, name);
        sum += f.kind == 'f' ? f.d : 0;
        isum += f.kind == 'i' ? f.i : 0;
        exact = f.kind == 'i';
    }
    if (exact)
        cr_expect_eq(isum, strtoll(value, NULL, 10), "%s: the sum is %lld",
                     where, (long long)isum);
    else
        expect_near(sum, value, where);
}

static void expect_ids(const struct trace *t, char *args, const char *where)
{
    size_t n = 0;
    for (char *id = strtok(args, " "); id; id = strtok(NULL, " "), n++) {
        cr_assert_lt(n, t->njobs, "%s: fewer jobs than ids", where);
        cr_expect_str_eq(trace_str(t, t->jobs[n].id), id, "%s: job %zu is %s",
                         where, n, trace_str(t, t->jobs[n].id));
    }
    cr_expect_eq(n, t->njobs, "%s: %zu jobs, %zu ids", where, t->njobs, n);
}

static void expect_note(const struct trace *t, char *args, const char *where)
{
    char *end;
    size_t count = strtoul(args, &end, 10), k = 0;
    const char *text = end + (*end == ' ');
    while (k < t->nnotes && strcmp(t->notes[k].what, text) != 0)
        k++;
    for (size_t i = 0; k == t->nnotes && i < t->nnotes; i++)
        k = strstr(t->notes[i].what, text) ? i : k;
    cr_expect_lt(k, t->nnotes, "%s: no note \"%s\"", where, text);
    if (k < t->nnotes)
        cr_expect_eq(t->notes[k].count, count, "%s: note \"%s\" counts %zu",
                     where, t->notes[k].what, t->notes[k].count);
}

static void expect_count(size_t got, const char *want, const char *where)
{
    cr_expect_eq(got, strtoul(want, NULL, 10), "%s: %zu", where, got);
}

/* Runs one statement of a trace's .expect; 0 if it is not one. */
static int expect_trace_line(const struct trace *t, const struct trace_error *e,
                             const char *op, char *rest, const char *where)
{
    if (strcmp(op, "jobs") == 0)
        expect_count(t->njobs, rest, where);
    else if (strcmp(op, "skipped") == 0)
        expect_count(t->rows_skipped, rest, where);
    else if (strcmp(op, "notes") == 0)
        expect_count(t->nnotes, rest, where);
    else if (strcmp(op, "format") == 0)
        cr_expect_str_eq(trace_format_name(t->format), rest, "%s", where);
    else if (strcmp(op, "total_gpu_seconds") == 0)
        expect_near(case_total_gpu_seconds(t), rest, where);
    else if (strcmp(op, "note") == 0)
        expect_note(t, rest, where);
    else if (strcmp(op, "first_skipped") == 0)
        expect_error(e, rest, where);
    else if (strcmp(op, "ids") == 0)
        expect_ids(t, rest, where);
    else
        return 0;
    return 1;
}

/* Runs one statement of a valid case's .expect. */
static void expect_line(const struct case_target *r, const union case_object *o,
                        const struct trace_error *e, char *line,
                        const char *where)
{
    char *rest = strchr(line, ' '), empty[1] = "";
    rest = rest ? (*rest = '\0', rest + 1) : empty;
    if (strcmp(line, "num") == 0 || strcmp(line, "str") == 0)
        expect_field(r, o, rest, line[0] == 's', where);
    else if (strcmp(line, "sum") == 0)
        expect_sum(r, o, rest, 0, where);
    else if (r->kind == CASE_NODES && strcmp(line, "model_gpus") == 0)
        expect_sum(r, o, rest, 1, where);
    else if (r->kind == CASE_NODES && strcmp(line, "nodes") == 0)
        expect_count(o->nodes->n, rest, where);
    else if (r->kind != CASE_TRACE ||
             !expect_trace_line(o->trace, e, line, rest, where))
        cr_assert_fail("%s: unknown statement %s", where, line);
}

/* An .expect file being read. */
struct expect {
    FILE *f;
    char line[4096];  /* the current line, without its line end */
    int n;            /* its number */
    char name[1024];  /* dir/kind/case.expect */
    char where[1100]; /* name:n */
};

/* Moves to the next line that is neither blank nor a comment; 0 at the
 * end (line is then ""). */
static int next_line(struct expect *x)
{
    while (fgets(x->line, sizeof x->line, x->f)) {
        x->line[strcspn(x->line, "\r\n")] = '\0';
        snprintf(x->where, sizeof x->where, "%s:%d", x->name, ++x->n);
        if (x->line[0] != '#' && x->line[0] != '\0')
            return 1;
    }
    x->line[0] = '\0';
    return 0;
}

/* Applies an option line to *opt; 0 if it is not one. */
static int option_line(const struct expect *x, struct trace_options *opt)
{
    if (strncmp(x->line, "flags ", 6) == 0) {
        cr_assert_str_eq(x->line + 6, "skip", "%s: unknown flag", x->where);
        opt->flags = TRACE_SKIP_BAD_ROWS;
    } else if (strncmp(x->line, "procs_per_gpu ", 14) == 0) {
        opt->procs_per_gpu = strtod(x->line + 14, NULL);
    } else {
        return 0;
    }
    return 1;
}

static int read_case(const struct case_target *r, const char *path,
                     const struct trace_options *opt, union case_object *o,
                     struct trace_error *e)
{
    switch (r->kind) {
    case CASE_NODES: return trace_read_alibaba_nodes(path, &o->nodes, e);
    case CASE_THROUGHPUTS:
        return trace_throughputs_load(path, &o->throughputs, e);
    default:
        return r->read ? r->read(path, opt, &o->trace, e)
                       : trace_read(path, r->format, opt, &o->trace, e);
    }
}

static void destroy_case(const struct case_target *r, union case_object *o)
{
    switch (r->kind) {
    case CASE_NODES: trace_nodes_destroy(o->nodes); break;
    case CASE_THROUGHPUTS: trace_throughputs_destroy(o->throughputs); break;
    default: trace_destroy(o->trace);
    }
}

/* Checks the input path of an invalid case against the line of x after
 * the option lines. */
static void check_invalid(const struct case_target *r, const char *path,
                          const struct trace_options *opt, struct expect *x)
{
    union case_object o;
    struct trace_error e;
    memset(&o, 0xff, sizeof o); /* must come back NULL */
    int rc = read_case(r, path, opt, &o, &e);
    cr_expect_eq(rc, TRACE_EPARSE, "%s: rc %d", x->name, rc);
    cr_expect_null(o.trace, "%s: *out not NULL", x->name);
    cr_expect_str_eq(e.source, path, "%s: source %s", x->name, e.source);
    if (rc == 0)
        destroy_case(r, &o);
    cr_assert(x->line[0], "%s: no error line", x->name);
    expect_error(&e, x->line, x->where);
    cr_expect(!next_line(x), "%s: a second error line", x->where);
}

/* Reads the input path of a valid case and runs the statements of x from
 * its current line on. */
static void check_valid(const struct case_target *r, const char *path,
                        const struct trace_options *opt, struct expect *x)
{
    union case_object o = {NULL};
    struct trace_options ignored;
    struct trace_error e;
    int rc = read_case(r, path, opt, &o, &e);
    cr_assert_eq(rc, 0, "%s: rc %d, %ld:%ld: %s", x->name, rc, e.line, e.column,
                 e.text);
    if (r->kind == CASE_TRACE)
        cr_expect_eq(o.trace->format, r->format, "%s: format %s", x->name,
                     trace_format_name(o.trace->format));
    for (int more = x->line[0] != '\0'; more; more = next_line(x)) {
        cr_assert(!option_line(x, &ignored), "%s: an option after a statement",
                  x->where);
        expect_line(r, &o, &e, x->line, x->where);
    }
    destroy_case(r, &o);
}

/* Checks one case of HETSIM_TEST_DATA/<dir>/<kind>. */
static void run_case(const char *dir, const char *kind, const char *name,
                     const char *ext, const struct case_target *r)
{
    char path[1024];
    struct trace_options opt = {0, 1};
    struct expect x = {.n = 0};
    snprintf(path, sizeof path, "%s/%s/%s/%s.expect", HETSIM_TEST_DATA, dir,
             kind, name);
    snprintf(x.name, sizeof x.name, "%s/%s/%s.expect", dir, kind, name);
    x.f = fopen(path, "r");
    cr_assert_not_null(x.f, "%s: no .expect file", x.name);
    while (next_line(&x) && option_line(&x, &opt))
        ;
    snprintf(path, sizeof path, "%s/%s/%s/%s.%s", HETSIM_TEST_DATA, dir, kind,
             name, ext);
    if (strcmp(kind, "valid") == 0)
        check_valid(r, path, &opt, &x);
    else
        check_invalid(r, path, &opt, &x);
    fclose(x.f);
}

void case_run(const char *dir, const char *kind, const char *ext,
              const struct case_target *target, size_t min)
{
    char path[1024], *names[MAX_CASES];
    snprintf(path, sizeof path, "%s/%s/%s", HETSIM_TEST_DATA, dir, kind);
    size_t n = list_cases(path, ext, names);
    cr_expect_geq(n, min, "only %zu cases in %s", n, path);
    for (size_t i = 0; i < n; i++) {
        run_case(dir, kind, names[i], ext, target);
        free(names[i]);
    }
}

void case_run_all(const char *dir, const char *ext, enum trace_format f,
                  case_reader read, size_t min_valid, size_t min_invalid)
{
    const struct case_target target = {CASE_TRACE, f, read};
    case_run(dir, "valid", ext, &target, min_valid);
    case_run(dir, "invalid", ext, &target, min_invalid);
}

/* ---- helpers ------------------------------------------------------------ */

struct trace *case_read_ok(const char *path, enum trace_format f,
                           const struct trace_options *opt)
{
    struct trace *t = NULL;
    struct trace_error e;
    int rc = trace_read(path, f, opt, &t, &e);
    cr_assert_eq(rc, 0, "%s: rc %d, %ld:%ld: %s", path, rc, e.line, e.column,
                 e.text);
    return t;
}

struct trace *case_read_temp(const char *path, enum trace_format f)
{
    struct trace *t = NULL;
    struct trace_error e;
    int rc = trace_read(path, f, NULL, &t, &e);
    unlink(path);
    cr_assert_eq(rc, 0, "rc %d, %ld:%ld: %s", rc, e.line, e.column, e.text);
    return t;
}

FILE *case_temp_file(char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/hetsim_traces_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    FILE *f = fdopen(fd, "wb");
    cr_assert_not_null(f);
    return f;
}

double case_total_gpu_seconds(const struct trace *t)
{
    double sum = 0;
    for (size_t i = 0; i < t->njobs; i++)
        sum += t->jobs[i].num_gpus * t->jobs[i].duration;
    return sum;
}

size_t case_note_count(const struct trace *t, const char *what)
{
    for (size_t i = 0; i < t->nnotes; i++)
        if (strcmp(t->notes[i].what, what) == 0)
            return t->notes[i].count;
    return 0;
}
