/* rows_writer.c -- jobs.csv's rows formatted and written on a thread of
 * their own while a streaming run goes on (stream_run.c): the run copies
 * each retired job's fields into a block of records, and hands full
 * blocks over through a ring of WB_BLOCKS; the writer formats them with
 * cli_jobs_put, in order, so the file holds the same bytes as when the
 * run formats them itself. That is what happens with one CPU, when the
 * thread cannot be had, or with HETSIM_WRITER_THREAD=0 (docs/streaming.md
 * has the figures: on two cores the row formatting leaves the run's
 * thread). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define WB_BLOCK ((size_t)1 << 18)
#define WB_BLOCKS 4

/* A record: this head, then the id and the reason, each with its NUL. */
struct rec {
    double submit, start, finish, run_s;
    int32_t num_gpus, gpu_type, preemptions;
    uint8_t state, failure;
    uint16_t id_len, reason_len;
};

struct cli_rows_writer {
    struct cli_rows *out;
    const struct cluster *c;
    int threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *block[WB_BLOCKS];
    size_t len[WB_BLOCKS];
    size_t head, tail; /* blocks [head, tail) are full, in order */
    int done;          /* no block comes after tail */
    size_t n;          /* bytes in block[tail % WB_BLOCKS], being filled */
};

static void put_block(struct cli_rows_writer *w, const char *b, size_t len)
{
    for (size_t at = 0; at < len;) {
        struct rec r;
        memcpy(&r, b + at, sizeof r);
        const char *id = b + at + sizeof r;
        struct cli_job_fields f = {
            r.submit,   r.start,    r.finish,         r.run_s,
            r.num_gpus, r.gpu_type, r.preemptions,    r.state,
            r.failure,  id,         id + r.id_len + 1};
        cli_jobs_put(w->out, w->c, &f);
        at += sizeof r + r.id_len + 1u + r.reason_len + 1u;
    }
}

static void *writer_main(void *arg)
{
    struct cli_rows_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->head == w->tail && !w->done)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->head == w->tail)
            break;
        size_t i = w->head % WB_BLOCKS;
        pthread_mutex_unlock(&w->mu);
        put_block(w, w->block[i], w->len[i]);
        pthread_mutex_lock(&w->mu);
        w->head++;
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct cli_rows_writer *cli_rows_writer_start(struct cli_rows *out,
                                              const struct cluster *c)
{
    struct cli_rows_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->out = out;
    w->c = c;
    const char *env = getenv("HETSIM_WRITER_THREAD");
    if ((env && strcmp(env, "0") == 0) || sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return w; /* rows formatted by the caller */
    for (int i = 0; i < WB_BLOCKS; i++)
        if (!(w->block[i] = malloc(WB_BLOCK)))
            return w; /* freed by cli_rows_writer_end */
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        return w;
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return w;
    }
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return w;
    }
    w->threaded = 1;
    return w;
}

/* Hands the block being filled to the writer; with LAST, the end. */
static void hand_over(struct cli_rows_writer *w, int last)
{
    pthread_mutex_lock(&w->mu);
    if (w->n) {
        w->len[w->tail % WB_BLOCKS] = w->n;
        w->tail++;
        w->n = 0;
    }
    w->done = last;
    pthread_cond_signal(&w->cv);
    while (!last && w->tail - w->head == WB_BLOCKS) /* all full: wait */
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

void cli_rows_writer_put(struct cli_rows_writer *w,
                         const struct cli_job_fields *f)
{
    if (!w->threaded) {
        cli_jobs_put(w->out, w->c, f);
        return;
    }
    /* over 1,024 bytes cli_jobs_put shows "(id too long)": the same here */
    const char *id = strlen(f->id) > 1024 ? "(id too long)" : f->id;
    size_t id_len = strlen(id), reason_len = strlen(f->reason);
    size_t size = sizeof(struct rec) + id_len + 1 + reason_len + 1;
    if (WB_BLOCK - w->n < size)
        hand_over(w, 0);
    struct rec r = {f->submit,           f->start,
                    f->finish,           f->run_s,
                    f->num_gpus,         f->gpu_type,
                    f->preemptions,      (uint8_t)f->state,
                    (uint8_t)f->failure, (uint16_t)id_len,
                    (uint16_t)reason_len};
    char *p = w->block[w->tail % WB_BLOCKS] + w->n;
    memcpy(p, &r, sizeof r);
    memcpy(p + sizeof r, id, id_len + 1);
    memcpy(p + sizeof r + id_len + 1, f->reason, reason_len + 1);
    w->n += size;
}

void cli_rows_writer_end(struct cli_rows_writer *w)
{
    if (!w)
        return;
    if (w->threaded) {
        hand_over(w, 1);
        pthread_join(w->thread, NULL);
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
    }
    for (int i = 0; i < WB_BLOCKS; i++)
        free(w->block[i]);
    free(w);
}
