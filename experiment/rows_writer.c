/* rows_writer.c -- records handed to a thread of their own while a
 * streaming run goes on (stream_run.c): the run copies each record into a
 * block, and hands full blocks over through a ring of PIPE_BLOCKS; the
 * thread passes them to the pipe's consumer, in order, and at the end calls
 * its `done`. So the consumer's output is what it would be if the run
 * called it itself, record by record. That is what happens with one CPU to
 * run on, when the thread cannot be had, or with HETSIM_WRITER_THREAD=0
 * (docs/performance.md has the figures: the thread pays only where a core
 * is idle).
 *
 * cli_thread_wanted and cli_thread_start also start stream_read.c's
 * thread.
 *
 * Two pipes use it: jobs.csv's rows (below: cli_jobs_put on each retired
 * job's fields, then the file flushed and written to disk while the run
 * writes timeline.csv) and timeline.csv's rows (stream_timeline.c). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PIPE_BLOCK ((size_t)1 << 18)
/* 4 MB: the run goes on while the thread waits for its file's fdatasync
 * (exp_file_background: 16 MB at a time, about 11 ms on the machine of
 * docs/performance.md) */
#define PIPE_BLOCKS 16
#define RING_ALIGN ((size_t)2 << 20)

struct cli_pipe {
    cli_pipe_fn *consume;
    void (*done)(void *ctx);
    void *ctx;
    int threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *block[PIPE_BLOCKS];
    size_t len[PIPE_BLOCKS];
    size_t head, tail; /* blocks [head, tail) are full, in order */
    int finished;      /* no block comes after tail */
    int ended;         /* done called, the thread joined */
    size_t n;          /* bytes in block[tail % PIPE_BLOCKS], being filled */
    char one[CLI_PIPE_RECORD_MAX]; /* a record, without the thread */
};

int cli_thread_wanted(const char *env)
{
    const char *v = getenv(env);
    cpu_set_t cpus; /* the CPUs this process may run on (taskset, cpusets) */
    return !(v && strcmp(v, "0") == 0) &&
           sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
           CPU_COUNT(&cpus) >= 2;
}

int cli_thread_start(pthread_t *t, pthread_mutex_t *mu, pthread_cond_t *cv,
                     void *(*fn)(void *), void *arg)
{
    if (pthread_mutex_init(mu, NULL) != 0)
        return 0;
    if (pthread_cond_init(cv, NULL) != 0) {
        pthread_mutex_destroy(mu);
        return 0;
    }
    if (pthread_create(t, NULL, fn, arg) != 0) {
        pthread_cond_destroy(cv);
        pthread_mutex_destroy(mu);
        return 0;
    }
    return 1;
}

static void *pipe_main(void *arg)
{
    struct cli_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->head == p->tail && !p->finished)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->head == p->tail)
            break;
        size_t i = p->head % PIPE_BLOCKS;
        pthread_mutex_unlock(&p->mu);
        p->consume(p->ctx, p->block[i], p->len[i]);
        pthread_mutex_lock(&p->mu);
        p->head++;
        pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    if (p->done)
        p->done(p->ctx);
    return NULL;
}

struct cli_pipe *cli_pipe_start(cli_pipe_fn *consume, void (*done)(void *ctx),
                                void *ctx)
{
    struct cli_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    *p = (struct cli_pipe){.consume = consume, .done = done, .ctx = ctx};
    if (!cli_thread_wanted("HETSIM_WRITER_THREAD"))
        return p; /* records consumed by the caller */
    /* one block for the ring, on 2 MB pages where the kernel offers them:
     * a first touch of each of its 4 KB pages would fault (some 15 us each
     * on the VM of docs/performance.md: 15 ms for the ring) */
    void *ring;
    if (posix_memalign(&ring, RING_ALIGN, PIPE_BLOCK * PIPE_BLOCKS) != 0)
        return p;
#ifdef MADV_HUGEPAGE
    (void)madvise(ring, PIPE_BLOCK * PIPE_BLOCKS, MADV_HUGEPAGE);
#endif
    for (int i = 0; i < PIPE_BLOCKS; i++)
        p->block[i] = (char *)ring + (size_t)i * PIPE_BLOCK;
    p->threaded = cli_thread_start(&p->thread, &p->mu, &p->cv, pipe_main, p);
    return p;
}

/* Hands the block being filled to the thread; with LAST, the end. */
static void hand_over(struct cli_pipe *p, int last)
{
    pthread_mutex_lock(&p->mu);
    if (p->n) {
        p->len[p->tail % PIPE_BLOCKS] = p->n;
        p->tail++;
        p->n = 0;
    }
    p->finished = last;
    pthread_cond_signal(&p->cv);
    while (!last && p->tail - p->head == PIPE_BLOCKS) /* all full: wait */
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

char *cli_pipe_room(struct cli_pipe *p, size_t size)
{
    if (!p->threaded)
        return p->one;
    if (PIPE_BLOCK - p->n < size)
        hand_over(p, 0);
    return p->block[p->tail % PIPE_BLOCKS] + p->n;
}

void cli_pipe_put(struct cli_pipe *p, size_t size)
{
    if (!p->threaded)
        p->consume(p->ctx, p->one, size);
    else
        p->n += size;
}

void cli_pipe_finish(struct cli_pipe *p)
{
    if (!p || p->finished)
        return;
    if (p->threaded)
        hand_over(p, 1);
    else {
        p->finished = 1;
        if (p->done)
            p->done(p->ctx);
    }
}

int cli_pipe_threaded(const struct cli_pipe *p)
{
    return p->threaded;
}

void cli_pipe_end(struct cli_pipe *p)
{
    if (!p)
        return;
    cli_pipe_finish(p);
    if (p->threaded) {
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->block[0]); /* the ring */
    free(p);
}

/* ---- jobs.csv's rows ---------------------------------------------------- */

/* A record: the job's fields, then the texts of its id and reason, each
 * with its NUL (the fields' pointers are set again when it is read). */

struct cli_rows_writer {
    struct cli_pipe *pipe;
    struct cli_rows *out;
    const struct cluster *c;
    struct cli_atomic *file; /* OUT's, or NULL */
    int finished;            /* cli_rows_writer_finish called */
};

static void put_block(void *ctx, const char *b, size_t len)
{
    struct cli_rows_writer *w = ctx;
    for (size_t at = 0; at < len;) {
        struct cli_job_fields f;
        memcpy(&f, b + at, sizeof f);
        f.id = b + at + sizeof f;
        f.reason = f.id + strlen(f.id) + 1;
        cli_jobs_put(w->out, w->c, &f);
        at = (size_t)(f.reason + strlen(f.reason) + 1 - b);
    }
}

static void rows_done(void *ctx)
{
    struct cli_rows_writer *w = ctx;
    if (!w->file || !w->finished)
        return;
    cli_rows_close(w->out);
    cli_atomic_presync(w->file);
}

struct cli_rows_writer *cli_rows_writer_start(struct cli_rows *out,
                                              const struct cluster *c,
                                              struct cli_atomic *file)
{
    struct cli_rows_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    *w = (struct cli_rows_writer){.out = out, .c = c, .file = file};
    if (!(w->pipe = cli_pipe_start(put_block, rows_done, w))) {
        free(w);
        return NULL;
    }
    if (file && cli_pipe_threaded(w->pipe))
        cli_atomic_background(file);
    return w;
}

void cli_rows_writer_put(struct cli_rows_writer *w,
                         const struct cli_job_fields *f, size_t id_len)
{
    const char *id = f->id; /* as cli_job_shown_id: at most CLI_ID_MAX */
    if (id_len > CLI_ID_MAX)
        id_len = strlen(id = cli_job_shown_id(id));
    size_t reason_len = f->reason[0] ? strlen(f->reason) : 0; /* most: "" */
    size_t size = sizeof *f + id_len + 1 + reason_len + 1;
    if (size > CLI_PIPE_RECORD_MAX) /* cannot be: see exp_run.h */
        abort();
    char *p = cli_pipe_room(w->pipe, size);
    memcpy(p, f, sizeof *f);
    memcpy(p + sizeof *f, id, id_len + 1);
    memcpy(p + sizeof *f + id_len + 1, f->reason, reason_len + 1);
    cli_pipe_put(w->pipe, size);
}

void cli_rows_writer_finish(struct cli_rows_writer *w)
{
    if (!w)
        return;
    w->finished = 1;
    cli_pipe_finish(w->pipe);
}

void cli_rows_writer_end(struct cli_rows_writer *w)
{
    if (!w)
        return;
    cli_pipe_end(w->pipe);
    free(w);
}
