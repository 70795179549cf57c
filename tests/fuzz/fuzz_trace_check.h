/* fuzz_trace_check.h -- the invariants a trace reader must keep whatever
 * its input (traces.h), checked by the fuzz targets of fuzz_targets.h.
 *
 * On failure: a TRACE_E* code, a non-empty err.text and *out NULL (*out is
 * set to a sentinel before the call, so a reader that leaves it alone is
 * caught). On success: at least one job; every job has num_gpus >= 1, a
 * finite submit_time >= 0, a finite duration > 0 (NAN allowed for Gavel
 * only), gpu_milli in 1..1000, usage peaks NAN or >= 0 and bursts NAN or
 * > 0, a source line >= 1, a non-empty job id unique
 * in the trace and strings that trace_str can read; rows are skipped only
 * under TRACE_SKIP_BAD_ROWS, and err.text is empty exactly when none was. */
#ifndef HETSIM_FUZZ_TRACE_CHECK_H
#define HETSIM_FUZZ_TRACE_CHECK_H

#include "fuzz_input.h"
#include "traces.h"

#include <math.h>

/* Values put in *out before a call; a reader that fails must replace them
 * with NULL. */
static inline struct trace *fuzz_trace_sentinel(void)
{
    static struct trace sentinel;
    return &sentinel;
}

static inline struct trace_nodes *fuzz_nodes_sentinel(void)
{
    static struct trace_nodes sentinel;
    return &sentinel;
}

/* A failed call that returned rc, with *out non-NULL when OUT_SET. */
static inline int fuzz_check_failure(int rc, int out_set,
                                     const struct trace_error *err, char *why)
{
    if (rc != TRACE_EIO && rc != TRACE_EPARSE && rc != TRACE_ENOMEM &&
        rc != TRACE_EFORMAT)
        return fuzz_fail(why, "returned %d, not a TRACE_E* code", rc);
    if (out_set)
        return fuzz_fail(why, "failed with %d but *out is not NULL", rc);
    if (!fuzz_text_ok(err->text, sizeof err->text))
        return fuzz_fail(why, "failed with %d and an empty err.text", rc);
    if (!memchr(err->source, '\0', sizeof err->source) || err->line < 0 ||
        err->column < 0)
        return fuzz_fail(why, "failed with %d and a broken err record", rc);
    return 0;
}

static inline int fuzz_check_job(const struct trace *t, size_t i, char *why)
{
    const struct trace_job *j = &t->jobs[i];
    const uint32_t strs[] = {j->id,  j->job_type, j->gpu_types, j->user,
                             j->vc,  j->model,    j->precision, j->optimizer,
                             j->qos, j->status};
    double d = j->duration;
    int nan_ok = t->format == TRACE_FMT_GAVEL && isnan(d);
    if (j->num_gpus < 1)
        return fuzz_fail(why, "job %zu (line %u): num_gpus %d < 1", i, j->line,
                         (int)j->num_gpus);
    if (!isfinite(j->submit_time) || !(j->submit_time >= 0))
        return fuzz_fail(why, "job %zu (line %u): submit_time %g", i, j->line,
                         j->submit_time);
    if (!nan_ok && !(isfinite(d) && d > 0))
        return fuzz_fail(why, "job %zu (line %u): duration %g", i, j->line, d);
    if (j->gpu_milli < 1 || j->gpu_milli > 1000)
        return fuzz_fail(why, "job %zu (line %u): gpu_milli %d", i, j->line,
                         (int)j->gpu_milli);
    if (j->line < 1)
        return fuzz_fail(why, "job %zu: line %u", i, j->line);
    for (int r = 0; r < TRACE_USE_N; r++) /* usage: NAN, peak >= 0, burst > 0 */
        if (!(isnan(j->use_peak[r]) ||
              (isfinite(j->use_peak[r]) && j->use_peak[r] >= 0)) ||
            !(isnan(j->use_burst[r]) ||
              (isfinite(j->use_burst[r]) && j->use_burst[r] > 0)))
            return fuzz_fail(why, "job %zu (line %u): usage %d: %g / %g", i,
                             j->line, r, j->use_peak[r], j->use_burst[r]);
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
        const char *s = trace_str(t, strs[k]);
        if (!s || strlen(s) > (size_t)UINT32_MAX)
            return fuzz_fail(why, "job %zu: string %zu unreadable", i, k);
    }
    if (trace_str(t, j->id)[0] == '\0')
        return fuzz_fail(why, "job %zu (line %u): empty job id", i, j->line);
    return 0;
}

static inline int fuzz_compare_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every job id once. */
static inline int fuzz_check_ids(const struct trace *t, char *why)
{
    const char **ids = malloc(t->njobs * sizeof *ids);
    int bad = 0;
    if (!ids)
        return fuzz_fail(why, "out of memory checking %zu ids", t->njobs);
    for (size_t i = 0; i < t->njobs; i++)
        ids[i] = trace_str(t, t->jobs[i].id);
    qsort(ids, t->njobs, sizeof *ids, fuzz_compare_str);
    for (size_t i = 1; i < t->njobs && !bad; i++)
        if (strcmp(ids[i - 1], ids[i]) == 0)
            bad = fuzz_fail(why, "job id \"%.64s\" appears twice", ids[i]);
    free(ids);
    return bad;
}

/* What a reader returned; WANT is the format or TRACE_FMT_AUTO for any. */
static inline int fuzz_check_trace(int rc, const struct trace *t,
                                   const struct trace_error *err,
                                   enum trace_format want, int flags, char *why)
{
    if (rc != 0)
        return fuzz_check_failure(rc, t != NULL, err, why);
    if (t == NULL || t == fuzz_trace_sentinel())
        return fuzz_fail(why, "returned 0 without a trace in *out");
    if (t->njobs == 0 || t->jobs == NULL)
        return fuzz_fail(why, "returned 0 with no jobs");
    if (want != TRACE_FMT_AUTO
            ? t->format != want
            : t->format <= TRACE_FMT_AUTO || t->format >= TRACE_FMT_COUNT)
        return fuzz_fail(why, "format %d, not %d", (int)t->format, (int)want);
    if (!(flags & TRACE_SKIP_BAD_ROWS) && t->rows_skipped)
        return fuzz_fail(why, "%zu rows skipped without TRACE_SKIP_BAD_ROWS",
                         t->rows_skipped);
    if (!memchr(err->text, '\0', sizeof err->text) ||
        (t->rows_skipped == 0) != (err->text[0] == '\0'))
        return fuzz_fail(
            why, "%zu rows skipped but err.text \"%.200s\"", t->rows_skipped,
            memchr(err->text, '\0', sizeof err->text) ? err->text
                                                      : "(not terminated)");
    if (t->nnotes > TRACE_MAX_NOTES)
        return fuzz_fail(why, "%zu notes", t->nnotes);
    for (size_t i = 0; i < t->nnotes; i++)
        if (!t->notes[i].what || t->notes[i].count == 0)
            return fuzz_fail(why, "note %zu is empty", i);
    for (size_t i = 0; i < t->njobs; i++)
        if (fuzz_check_job(t, i, why) != 0)
            return -1;
    return fuzz_check_ids(t, why);
}

/* Checks, then frees the trace a reader returned. */
static inline int fuzz_trace_done(int rc, struct trace *t,
                                  const struct trace_error *err,
                                  enum trace_format want, int flags, char *why)
{
    int bad = fuzz_check_trace(rc, t, err, want, flags, why);
    if (rc == 0 && t != fuzz_trace_sentinel())
        trace_destroy(t);
    return bad;
}

static inline int fuzz_check_nodes(int rc, const struct trace_nodes *n,
                                   const struct trace_error *err, char *why)
{
    if (rc != 0)
        return fuzz_check_failure(rc, n != NULL, err, why);
    if (n == NULL || n == fuzz_nodes_sentinel())
        return fuzz_fail(why, "returned 0 without nodes in *out");
    if (n->n > 0 && n->nodes == NULL)
        return fuzz_fail(why, "%zu nodes and no array", n->n);
    for (size_t i = 0; i < n->n; i++) {
        const struct trace_node *d = &n->nodes[i];
        if (!memchr(d->name, '\0', sizeof d->name) || d->name[0] == '\0' ||
            !memchr(d->model, '\0', sizeof d->model))
            return fuzz_fail(why, "node %zu: bad name or model", i);
        if (d->gpus < 0 || d->cpu_milli < 0 || !isfinite(d->memory_mib) ||
            d->memory_mib < 0)
            return fuzz_fail(why,
                             "node %zu (%s): gpus %d cpu_milli %d "
                             "memory_mib %g",
                             i, d->name, (int)d->gpus, (int)d->cpu_milli,
                             d->memory_mib);
    }
    return 0;
}

#endif
