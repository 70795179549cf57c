/* sweep_cell.c -- the cells of a sweep: the cross product of the SPEC, a
 * stable id for each, and the `hetsim` command lines that compute one. A
 * cell's id hashes its inputs, not its place in the SPEC, so adding a
 * policy or a seed to a SPEC keeps every finished cell finished. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "sweep_internal.h"

struct sweep_cell *sweep_cells(const struct sweep_spec *s, size_t *n)
{
    *n = s->nwork * s->nclusters * s->npolicies * s->nestimates * s->nseeds;
    struct sweep_cell *cells = calloc(*n ? *n : 1, sizeof *cells);
    if (!cells)
        return NULL;
    size_t k = 0;
    char text[16384];
    for (size_t w = 0; w < s->nwork; w++)
        for (size_t c = 0; c < s->nclusters; c++)
            for (size_t p = 0; p < s->npolicies; p++)
                for (size_t e = 0; e < s->nestimates; e++)
                    for (size_t seed = 0; seed < s->nseeds; seed++) {
                        struct sweep_cell *cell = &cells[k++];
                        *cell = (struct sweep_cell){w, c, p, e, seed, ""};
                        int len = sweep_cell_text(s, cell, text, sizeof text);
                        /* 64-bit FNV-1a (Fowler, Noll, Vo). */
                        uint64_t h = 14695981039346656037u;
                        for (int i = 0; i < len && i < (int)sizeof text; i++)
                            h = (h ^ (unsigned char)text[i]) *
                                1099511628211u;
                        snprintf(cell->id, sizeof cell->id, "%016llx",
                                 (unsigned long long)h);
                    }
    return cells;
}

int sweep_cell_text(const struct sweep_spec *s, const struct sweep_cell *c,
                    char *buf, size_t cap)
{
    const struct sweep_workload *w = &s->work[c->work];
    const struct sweep_policy *p = &s->policies[c->policy];
    size_t len = 0;
#define PUT(...)                                                         \
    len += (size_t)snprintf(buf + (len < cap ? len : cap),               \
                            len < cap ? cap - len : 0, __VA_ARGS__)
    PUT("workload=%s\n", w->label);
    if (!isnan(w->load)) {
        char load[32];
        PUT("load=%s\n", cli_fmt_double(load, w->load));
        for (size_t i = 0; i < s->ngen; i++)
            PUT("generator.%s=%s\n", s->gen_keys[i], s->gen_values[i]);
    } else if (s->format)
        PUT("format=%s\n", s->format);
    if (s->throughputs_label)
        PUT("throughputs=%s\n", s->throughputs_label);
    PUT("cluster=%s\npolicy=%s\n", s->clusters[c->cluster], p->name);
    for (size_t i = 0; i < p->nopts; i++)
        PUT("policy.%s=%s\n", p->keys[i], p->values[i]);
    if (p->placement)
        PUT("placement=%s\n", p->placement);
    if (p->backfill)
        PUT("backfill=%s\n", p->backfill);
    PUT("estimates=%s\nseed=%llu\n", s->estimates[c->estimates],
        (unsigned long long)s->seeds[c->seed]);
    /* sweep's command-line run options, as given (none: the text, hence
     * the id, of a sweep without them) */
    for (size_t i = 0; i < s->npass; i++) {
        /* every flag but --strict has a value */
        int value = strcmp(s->pass[i], "--strict") != 0 && i + 1 < s->npass;
        PUT("run.%s=%s\n", s->pass[i] + 2, value ? s->pass[i + 1] : "");
        i += (size_t)value;
    }
#undef PUT
    return (int)len;
}

void sweep_cell_dir(const char *out, const struct sweep_cell *c, char *buf,
                    size_t cap)
{
    snprintf(buf, cap, "%s/cells/%s", out, c->id);
}

int sweep_cell_done(const char *out, const struct sweep_cell *c)
{
    /* Done only when the run's whole result set is there (its manifest
     * and every file it names), not when summary.json alone is. */
    char path[4200];
    sweep_cell_dir(out, c, path, sizeof path);
    return exp_set_complete(path);
}

int sweep_cell_prepare(const struct sweep_spec *s, const char *out,
                       const struct sweep_cell *c)
{
    char dir[4200], text[16384];
    sweep_cell_dir(out, c, dir, sizeof dir);
    int len = sweep_cell_text(s, c, text, sizeof text);
    struct cli_atomic a;
    if (cli_mkdirs(dir) != 0 || cli_atomic_open(&a, dir, "cell.txt") != 0)
        return -1;
    fwrite(text, 1, (size_t)len < sizeof text ? (size_t)len : 0, a.f);
    return cli_atomic_commit(&a);
}

int sweep_cell_first_step(const struct sweep_spec *s,
                          const struct sweep_cell *c)
{
    return isnan(s->work[c->work].load) ? 1 : 0;
}

/* Appends TEXT to the strings of an argument list. */
struct argv_build {
    const char **args;
    size_t n;
    char *buf;
    size_t used;
    int overflow;
};

static void add(struct argv_build *b, const char *text)
{
    size_t len = strlen(text) + 1;
    if (b->n + 1 >= SWEEP_MAX_ARGS || b->used + len > SWEEP_ARGBUF) {
        b->overflow = 1; /* only paths thousands of bytes long get here */
        return;
    }
    memcpy(b->buf + b->used, text, len);
    b->args[b->n++] = b->buf + b->used;
    b->args[b->n] = NULL;
    b->used += len;
}

static void add2(struct argv_build *b, const char *a, const char *v)
{
    add(b, a);
    add(b, v);
}

int sweep_cell_argv(const struct sweep_spec *s, const char *out,
                    const struct sweep_cell *c, int step, const char **args,
                    char *buf)
{
    const struct sweep_workload *w = &s->work[c->work];
    const struct sweep_policy *p = &s->policies[c->policy];
    struct argv_build b = {args, 0, buf, 0, 0};
    char dir[4200], trace[4300], seed[32], text[512];
    sweep_cell_dir(out, c, dir, sizeof dir);
    snprintf(trace, sizeof trace, "%s/trace.csv", dir);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->seeds[c->seed]);
    if (step == 0) {
        if (isnan(w->load))
            return -1;
        add(&b, "hetsim");
        add2(&b, "trace", "generate");
        add(&b, "-q");
        add2(&b, "-o", trace);
        add2(&b, "--cluster", s->cluster_args[c->cluster]);
        add2(&b, "--load", cli_fmt_double(text, w->load));
        add2(&b, "--seed", seed);
        for (size_t i = 0; i < s->ngen; i++) {
            snprintf(text, sizeof text, "--%s", s->gen_keys[i]);
            add2(&b, text, s->gen_values[i]);
        }
        return b.overflow ? -1 : 0;
    }
    add(&b, "hetsim");
    add2(&b, "run", "-q");
    add2(&b, "--trace", isnan(w->load) ? w->path : trace);
    if (isnan(w->load) && s->format)
        add2(&b, "--format", s->format);
    add2(&b, "--cluster", s->cluster_args[c->cluster]);
    if (s->throughputs)
        add2(&b, "--throughputs", s->throughputs);
    add2(&b, "--policy", p->name);
    for (size_t i = 0; i < s->npass; i++)
        add(&b, s->pass[i]);
    for (size_t i = 0; i < p->nopts; i++) {
        snprintf(text, sizeof text, "%s=%s", p->keys[i], p->values[i]);
        add2(&b, "--policy-opt", text);
    }
    if (p->placement)
        add2(&b, "--placement", p->placement);
    if (p->backfill)
        add2(&b, "--backfill", p->backfill);
    add2(&b, "--estimates", s->estimates[c->estimates]);
    add2(&b, "--seed", seed);
    add2(&b, "--out", dir);
    return b.overflow ? -1 : 0;
}
