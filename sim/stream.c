/* stream.c -- the streaming run (docs/streaming.md): jobs read from a
 * source one arrival ahead, retired in id order once finished, and their
 * chunks of the job store freed, so that memory follows the active jobs.
 *
 * The engine's event sequence is the whole-trace run's: that run pushes
 * the next arrival while handling one (push_next_arrival), and so does
 * this one, reading that next job just then; ids are the arrival order,
 * which sim_sort_arrivals gives a sorted trace. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

struct sim_stream {
    struct sim_source src;
    int done; /* the source said end */
    int rc;   /* its error, or SIM_EINVAL for a time going back */
    double last_submit;
    size_t retired;        /* jobs [0, retired) are retired */
    size_t freed;          /* chunks [0, freed) are freed */
    size_t live, peak;     /* chunks held now, and at most */
    struct sim_job *spare; /* a retired chunk kept for the next one */
    struct sim_fold fold;
};

int sim_set_source(struct sim *s, const struct sim_source *src)
{
    if (s->ran || s->njobs || s->stream || !src || !src->next)
        return SIM_EINVAL;
    struct sim_stream *st = calloc(1, sizeof *st);
    if (!st)
        return SIM_ENOMEM;
    if (sim_fold_init(&st->fold, NULL, 1024) != 0) {
        free(st);
        return SIM_ENOMEM;
    }
    st->src = *src;
    s->stream = st;
    return 0;
}

void sim_stream_free(struct sim *s)
{
    if (!s->stream)
        return;
    sim_fold_free(&s->stream->fold);
    free(s->stream->spare);
    free(s->stream);
    s->stream = NULL;
}

int sim_stream_read(struct sim *s)
{
    struct sim_stream *st = s->stream;
    if (st->done || st->rc)
        return 1;
    struct sim_job_spec spec;
    memset(&spec, 0, sizeof spec);
    int rc = st->src.next(st->src.ctx, &spec);
    if (rc == 1) {
        st->done = 1;
        return 1;
    }
    if (rc == 0 && s->njobs && spec.submit_time < st->last_submit)
        rc = SIM_EINVAL; /* ids must be the arrival order */
    if (rc == 0) {
        spec.trace_index = (uint32_t)s->njobs;
        rc = sim_add_job(s, &spec);
        if (rc == 0 && (s->njobs - 1) % SIM_CHUNK == 0 && /* a new chunk */
            ++st->live > st->peak)
            st->peak = st->live;
    }
    if (rc) {
        st->rc = rc;
        return 1;
    }
    st->last_submit = spec.submit_time;
    if (s->frag)
        sim_frag_count_job(s, (uint32_t)(s->njobs - 1));
    return 0;
}

void sim_stream_retire(struct sim *s)
{
    struct sim_stream *st = s->stream;
    while (st->retired < s->next_arrival) {
        uint32_t j = (uint32_t)st->retired;
        const struct sim_job *job = sim_job_at(s, j);
        if (job->state != JOB_COMPLETED && job->state != JOB_FAILED)
            break;
        sim_fold_job(&st->fold, s, j);
        if (st->src.retire)
            st->src.retire(st->src.ctx, s, j);
        st->retired++;
        if (st->retired % SIM_CHUNK == 0) { /* the chunk is all retired */
            free(st->spare);
            st->spare = s->chunks[st->freed];
            s->chunks[st->freed++] = NULL;
            st->live--;
        }
    }
}

int sim_stream_retired(const struct sim *s, uint32_t j)
{
    return j < s->stream->retired;
}

size_t sim_stream_nretired(const struct sim *s)
{
    return s->stream ? s->stream->retired : 0;
}

int sim_stream_failed(const struct sim *s)
{
    return s->stream->rc != 0;
}

int sim_stream_end(struct sim *s, struct sim_error *err)
{
    struct sim_stream *st = s->stream;
    if (!st->rc)
        sim_stream_retire(s);
    if (st->rc)
        sim_error_set(err, "job source", 0, "job source: %s",
                      st->rc == SIM_EINVAL && !st->done
                          ? "a job whose submit time is before the "
                            "previous one's, or not valid"
                          : sim_strerror(st->rc));
    return st->rc;
}

struct sim_job *sim_stream_spare(struct sim *s)
{
    struct sim_job *c = s->stream->spare;
    s->stream->spare = NULL;
    return c;
}

struct sim_fold *sim_stream_fold(const struct sim *s)
{
    return s->stream ? &s->stream->fold : NULL;
}

size_t sim_live_chunks(const struct sim *s, size_t *peak)
{
    if (peak)
        *peak = s->stream ? s->stream->peak : 0;
    return s->stream ? s->stream->live : 0;
}
