/* rows_writer.c -- jobs.csv's rows formatted and written on a thread of
 * their own while a streaming run goes on (stream_run.c): the run copies
 * each retired job's fields into a block of records, and hands full
 * blocks over through a ring of WB_BLOCKS; the writer formats them with
 * cli_jobs_put, in order, so the file holds the same bytes as when the
 * run formats them itself. That is what happens with one CPU to run on,
 * when the thread cannot be had, or with HETSIM_WRITER_THREAD=0
 * (docs/performance.md has the figures: the thread pays only where a core
 * is idle). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define WB_BLOCK ((size_t)1 << 18)
#define WB_BLOCKS 4

/* A record: the job's fields, then the texts of its id and reason, each
 * with its NUL (the fields' pointers are set again when it is read). */

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
        struct cli_job_fields f;
        memcpy(&f, b + at, sizeof f);
        f.id = b + at + sizeof f;
        f.reason = f.id + strlen(f.id) + 1;
        cli_jobs_put(w->out, w->c, &f);
        at = (size_t)(f.reason + strlen(f.reason) + 1 - b);
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
    cpu_set_t cpus; /* the CPUs this process may run on (taskset, cpusets) */
    if ((env && strcmp(env, "0") == 0) ||
        sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) < 2)
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
    const char *id = cli_job_shown_id(f->id); /* at most CLI_ID_MAX bytes */
    size_t id_len = strlen(id), reason_len = strlen(f->reason);
    size_t size = sizeof *f + id_len + 1 + reason_len + 1;
    if (WB_BLOCK - w->n < size)
        hand_over(w, 0);
    char *p = w->block[w->tail % WB_BLOCKS] + w->n;
    memcpy(p, f, sizeof *f);
    memcpy(p + sizeof *f, id, id_len + 1);
    memcpy(p + sizeof *f + id_len + 1, f->reason, reason_len + 1);
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
