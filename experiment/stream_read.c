/* stream_read.c -- the rows of a streamed native trace (stream_run.c),
 * parsed a block ahead on a thread of their own while the run simulates
 * the rows before them. The thread fills blocks of rows in a ring of
 * READ_BLOCKS and the run takes them in order, so it sees the rows, and
 * the end or the error after the last of them, as it would reading them
 * itself; that is what happens with one CPU to run on, when the thread
 * cannot be had, or with HETSIM_READER_THREAD=0 (a block at a time, on
 * the run's thread).
 *
 * The thread stops at the end of the trace, at its first error and after
 * the first row whose gpu_type the cluster lacks: nothing is read beyond
 * what would have been. When the run stops earlier (its own error), the
 * thread stops at its next row; on a pipe, that is when the writer sends
 * one or closes it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* 64 KB: about 1,500 rows of a trace without types, in L2 when taken */
#define READ_BLOCK ((size_t)1 << 16)
#define READ_BLOCKS 8
/* A row's record at most: the row, an id cut to CLI_ID_MAX + 1 bytes and
 * a gpu_type text of up to 1,023, each with its NUL, rounded up. */
#define ROW_MAX (sizeof(struct cli_read_row) + CLI_ID_MAX + 2 + 1024 + 8)

struct block {
    char *b;
    size_t len;             /* bytes of records */
    int end;                /* no block comes after this one */
    int rc;                 /* at the end: trace_native_next's 0 or error */
    struct trace_error err; /* at the end: its *err */
    double from, to;        /* the share of the file read before and after it */
};

struct cli_reader {
    struct trace_native *n;
    const struct cluster *c;
    int want_id, has_type;
    int threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int stop; /* the run asks the thread to stop */
    struct block blk[READ_BLOCKS];
    size_t head, tail; /* blocks [head, tail) are full, in order */
    int taking;        /* the run reads blk[head % READ_BLOCKS] */
    size_t at;         /* ... from this byte */
};

static size_t round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* Fills B with the records of the next rows, up to its end; the thread's
 * work, or the run's without it. */
static void fill(struct cli_reader *r, struct block *b)
{
    char types[1024];
    b->len = 0;
    b->end = 0;
    b->from = trace_native_fraction(r->n);
    while (b->len + ROW_MAX <= READ_BLOCK) {
        struct trace_job tj;
        int got = trace_native_next(r->n, &tj, &b->err);
        if (got <= 0 || atomic_load_explicit(&r->stop, memory_order_relaxed)) {
            b->end = 1;
            b->rc = got > 0 ? 0 : got;
            break;
        }
        struct cli_read_row row = {tj.submit_time, tj.duration, tj.line, 0,
                                   tj.num_gpus,    0,           0};
        const char *text = "";
        if (r->has_type) {
            text = trace_native_text(r->n, "gpu_type", types, sizeof types);
            row.mask = cli_types_mask(r->c, text);
        }
        size_t len = 0;
        const char *id = r->want_id ? trace_native_id(r->n, &len) : "";
        /* up to one byte over a row's longest id: longer ones show as too
         * long */
        row.id_len = (uint16_t)(len < CLI_ID_MAX + 1 ? len : CLI_ID_MAX + 1);
        row.text_len = row.mask < 0 ? (uint16_t)strlen(text) : 0;
        char *p = b->b + b->len;
        memcpy(p, &row, sizeof row);
        p += sizeof row;
        memcpy(p, id, row.id_len);
        p[row.id_len] = '\0';
        p += row.id_len + 1;
        memcpy(p, text, row.text_len);
        p[row.text_len] = '\0';
        b->len += round8(sizeof row + row.id_len + 1 + row.text_len + 1);
        if (row.mask < 0) { /* the run fails there: read no further */
            b->end = 1;
            b->rc = 0;
            break;
        }
    }
    b->to = trace_native_fraction(r->n);
}

static void *reader_main(void *arg)
{
    struct cli_reader *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->tail - r->head == READ_BLOCKS &&
               !atomic_load_explicit(&r->stop, memory_order_relaxed))
            pthread_cond_wait(&r->cv, &r->mu);
        if (atomic_load_explicit(&r->stop, memory_order_relaxed))
            break;
        struct block *b = &r->blk[r->tail % READ_BLOCKS];
        pthread_mutex_unlock(&r->mu);
        fill(r, b);
        pthread_mutex_lock(&r->mu);
        r->tail++;
        pthread_cond_signal(&r->cv);
        if (b->end)
            break;
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

struct cli_reader *cli_reader_start(struct trace_native *n,
                                    const struct cluster *c, int want_id)
{
    struct cli_reader *r = calloc(1, sizeof *r);
    char *ring = malloc(READ_BLOCK * READ_BLOCKS);
    if (!r || !ring) {
        free(r);
        free(ring);
        return NULL;
    }
    r->n = n;
    r->c = c;
    r->want_id = want_id;
    r->has_type = trace_native_has_column(n, "gpu_type");
    atomic_init(&r->stop, 0);
    for (int i = 0; i < READ_BLOCKS; i++)
        r->blk[i].b = ring + (size_t)i * READ_BLOCK;
    if (cli_thread_wanted("HETSIM_READER_THREAD"))
        r->threaded =
            cli_thread_start(&r->thread, &r->mu, &r->cv, reader_main, r);
    return r; /* without the thread, rows read by the run */
}

/* Gives back the block the run has read: the thread may fill it again. */
static void give_back(struct cli_reader *r)
{
    r->taking = 0;
    r->at = 0;
    if (!r->threaded)
        return;
    pthread_mutex_lock(&r->mu);
    r->head++;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Waits for the next block to take: filled by the thread, or here. */
static void take(struct cli_reader *r)
{
    if (!r->threaded)
        fill(r, &r->blk[0]);
    else {
        pthread_mutex_lock(&r->mu);
        while (r->head == r->tail)
            pthread_cond_wait(&r->cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
    }
    r->taking = 1;
}

int cli_reader_next(struct cli_reader *r, const struct cli_read_row **row,
                    const char **id, const char **text, struct trace_error *err)
{
    for (;;) {
        if (r->taking) {
            struct block *b = &r->blk[r->threaded ? r->head % READ_BLOCKS : 0];
            if (r->at < b->len) {
                const char *p = b->b + r->at;
                const struct cli_read_row *w = (const struct cli_read_row *)p;
                *row = w;
                *id = p + sizeof *w;
                *text = *id + w->id_len + 1;
                r->at += round8(sizeof *w + w->id_len + 1 + w->text_len + 1);
                return 1;
            }
            if (b->end) {
                *err = b->err;
                return b->rc;
            }
            give_back(r);
        }
        take(r);
    }
}

double cli_reader_fraction(const struct cli_reader *r)
{
    /* the block being taken (the thread's own are not looked at), its
     * rows taken as a share of its bytes */
    if (!r->taking)
        return -1;
    const struct block *b = &r->blk[r->threaded ? r->head % READ_BLOCKS : 0];
    if (b->from < 0 || b->len == 0)
        return b->to;
    return b->from + (b->to - b->from) * (double)r->at / (double)b->len;
}

void cli_reader_end(struct cli_reader *r)
{
    if (!r)
        return;
    if (r->threaded) {
        pthread_mutex_lock(&r->mu);
        atomic_store(&r->stop, 1);
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
    }
    free(r->blk[0].b);
    free(r);
}
