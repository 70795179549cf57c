/* stream_timeline.c -- timeline.csv of a streaming run (stream_run.c).
 *
 * Its frag_gpus column, the last, measures the cluster against the whole
 * trace's mix of jobs, which a streaming run knows only at its end (sim.h,
 * sim_frag_mark). So the observer's rows are noted with their marks and
 * handed to a pipe (rows_writer.c), whose thread formats each row but its
 * last column into a temporary file; after the run they are written out:
 * the fragmentation replayed up to each mark, and a row left out when it
 * repeats the row before it, as a whole-trace run's observer leaves it out.
 * The engine calls the observer at least whenever a whole-trace run's
 * would, so the rows are the same bytes. Memory stays a few blocks; the
 * file is unlinked from the start (tmpfile), so it does not outlive the
 * process. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SPILL_BLOCK ((size_t)1 << 20)
#define NIL_EVERY 1024 /* records, a power of 2 */

/* A record handed over: time, mark, queued, busy, sim_frag_nil then, and
 * the busy GPUs of each type. */
struct head {
    double time;
    uint64_t mark;
    int32_t queued, busy, nil, unused;
};

static size_t record_size(int32_t ntypes)
{
    return sizeof(struct head) + (size_t)ntypes * sizeof(int32_t);
}

/* An entry of the temporary file: the mark, the length of the text, then
 * the row's text up to its last column ("time,queued,busy_gpus,...,"). */
struct entry {
    uint64_t mark;
    uint16_t len;
};
#define ENTRY_HEAD (sizeof(uint64_t) + sizeof(uint16_t))
#define ENTRY_MAX (ENTRY_HEAD + CLI_TIMELINE_PREFIX_MAX)

/* The row kept last, as put_row compares the next with it. */
struct last_row {
    int have;
    double frag;
    size_t klen, frag_len;
    char key[CLI_TIMELINE_PREFIX_MAX]; /* its text after the time */
    char frag_text[32];                /* frag's */
};

/* What the pipe's thread writes to (the run's thread after it has ended),
 * apart from the run's struct cli_tl_spill: no cache line written by one
 * thread is read by the other at every record. */
struct cli_tl_rows {
    FILE *f;
    char *b; /* a block of the temporary file's entries */
    size_t n;
    int32_t ntypes;
    int bad;
    /* the rows into FILE while the records say nil */
    struct cli_atomic *file;
    struct cli_rows rows;
    int spec; /* FILE holds every row so far */
    int keep; /* set before the end: FILE may be committed */
    struct last_row last; /* FILE's */
};

static void flush_block(struct cli_tl_rows *w)
{
    if (w->n && fwrite(w->b, 1, w->n, w->f) != w->n)
        w->bad = 1;
    w->n = 0;
}

/* The row of TEXT (its N bytes up to the last column) and FRAG into OUT,
 * unless it repeats the row kept before it, LAST (the same counts, the
 * text after the time, and the same frag). */
static void put_row(struct cli_rows *out, struct last_row *last,
                    const char *text, size_t n, double frag)
{
    const char *key = memchr(text, ',', n);
    if (!key)
        key = text + n;
    size_t klen = (size_t)(text + n - key);
    if (last->have && frag == last->frag && klen == last->klen &&
        memcmp(key, last->key, klen) == 0)
        return;
    if (!last->have || memcmp(&frag, &last->frag, sizeof frag) != 0) {
        char *fe = cli_put_double(last->frag_text, frag);
        last->frag_len = (size_t)(fe - last->frag_text);
    }
    last->have = 1;
    last->frag = frag;
    last->klen = klen;
    memcpy(last->key, key, klen);
    char *line = cli_rows_room(out);
    memcpy(line, text, n);
    memcpy(line + n, last->frag_text, last->frag_len);
    line[n + last->frag_len] = '\n';
    cli_rows_put(out, n + last->frag_len + 1);
}

/* The pipe's consumer: each record's entry into the temporary file, and
 * while they say nil, its row into FILE. */
static void put_entries(void *ctx, const char *b, size_t len)
{
    struct cli_tl_rows *w = ctx;
    size_t size = record_size(w->ntypes);
    int32_t by_type[SIM_MAX_GPU_TYPES];
    for (size_t at = 0; at + size <= len; at += size) {
        struct head h;
        memcpy(&h, b + at, sizeof h);
        memcpy(by_type, b + at + sizeof h, (size_t)w->ntypes * sizeof *by_type);
        if (SPILL_BLOCK - w->n < ENTRY_MAX)
            flush_block(w);
        char *e = w->b + w->n, *text = e + ENTRY_HEAD;
        char *end = cli_timeline_prefix(text, h.time, h.queued, h.busy, by_type,
                                        w->ntypes);
        uint16_t n = (uint16_t)(end - text);
        memcpy(e, &h.mark, sizeof h.mark);
        memcpy(e + sizeof h.mark, &n, sizeof n);
        w->n += ENTRY_HEAD + n;
        w->spec = w->spec && h.nil;
        if (w->spec) /* frag_gpus is 0 */
            put_row(&w->rows, &w->last, text, n, 0);
    }
}

static void entries_done(void *ctx)
{
    struct cli_tl_rows *w = ctx;
    flush_block(w);
    if (fflush(w->f) != 0)
        w->bad = 1;
    if (!w->file)
        return;
    cli_rows_close(&w->rows);
    if (w->spec && w->keep)
        cli_atomic_presync(w->file);
}

int cli_tl_spill_open(struct cli_tl_spill *sp, const struct sim *s,
                      int32_t ntypes, struct cli_atomic *file)
{
    *sp = (struct cli_tl_spill){.s = s, .ntypes = ntypes, .nil = 1};
    /* whole cache lines of its own */
    size_t size = (sizeof *sp->w + 63) / 64 * 64;
    struct cli_tl_rows *w = sp->w = aligned_alloc(64, size);
    if (!w)
        return -1;
    *w = (struct cli_tl_rows){.ntypes = ntypes, .file = file, .spec = !!file};
    if (file)
        cli_rows_open(&w->rows, file->f);
    w->f = tmpfile();
    w->b = malloc(SPILL_BLOCK);
    if (w->f && w->b)
        sp->pipe = cli_pipe_start(put_entries, entries_done, w);
    if (!sp->pipe) {
        cli_tl_spill_close(sp);
        return -1;
    }
    if (file && cli_pipe_threaded(sp->pipe))
        cli_atomic_background(file);
    return 0;
}

void cli_tl_spill_change(void *ctx, double time, int32_t queued, int32_t busy,
                         const int32_t *busy_by_type)
{
    struct cli_tl_spill *sp = ctx;
    size_t size = record_size(sp->ntypes);
    char *p = cli_pipe_room(sp->pipe, size);
    /* Looked at every NIL_EVERY records only: a record said nil after the
     * jobs stopped being so costs the thread a row written for nothing,
     * since the end looks again (cli_tl_spill_written). */
    if (sp->nil && (sp->records++ & (NIL_EVERY - 1)) == 0)
        sp->nil = sim_frag_nil(sp->s);
    struct head h = {time, sim_frag_mark(sp->s), queued, busy, sp->nil, 0};
    memcpy(p, &h, sizeof h);
    memcpy(p + sizeof h, busy_by_type,
           (size_t)sp->ntypes * sizeof *busy_by_type);
    cli_pipe_put(sp->pipe, size);
}

/* The rows of the whole entries in B[0, N), each left out when it equals
 * the row kept before it (LAST); the bytes of the entries read. */
static size_t put_rows(struct sim_frag_replay *r, const char *b, size_t n,
                       struct cli_rows *out, struct last_row *last)
{
    size_t at = 0;
    while (n - at >= ENTRY_HEAD) {
        struct entry e;
        memcpy(&e.mark, b + at, sizeof e.mark);
        memcpy(&e.len, b + at + sizeof e.mark, sizeof e.len);
        if (n - at - ENTRY_HEAD < e.len)
            break;
        const char *text = b + at + ENTRY_HEAD;
        at += ENTRY_HEAD + e.len;
        put_row(out, last, text, e.len, sim_frag_replay_gpus(r, e.mark));
    }
    return at;
}

int cli_tl_spill_written(struct cli_tl_spill *sp)
{
    sp->w->keep = 1;        /* read by the thread after the pipe's lock */
    cli_pipe_end(sp->pipe); /* every row written */
    sp->pipe = NULL;
    /* the jobs read after the last record count too */
    return sp->w->spec && sp->nil && sim_frag_nil(sp->s);
}

int cli_tl_spill_write(struct cli_tl_spill *sp, FILE *f,
                       const struct cluster *c)
{
    struct cli_tl_rows *w = sp->w;
    struct sim_frag_replay *r;
    struct last_row last = {0};
    cli_pipe_end(sp->pipe); /* every entry in the file */
    sp->pipe = NULL;
    int rc = sim_frag_replay_begin(sp->s, &r) != 0 || w->bad ||
             fseek(w->f, 0, SEEK_SET) != 0;
    struct cli_rows out;
    cli_timeline_header(f, c);
    cli_rows_open(&out, f);
    size_t kept = 0; /* bytes of an entry cut by the block's end */
    while (!rc) {
        size_t got = fread(w->b + kept, 1, SPILL_BLOCK - kept, w->f);
        size_t n = kept + got;
        size_t used = put_rows(r, w->b, n, &out, &last);
        kept = n - used;
        memmove(w->b, w->b + used, kept);
        if (got == 0)
            break;
    }
    cli_rows_close(&out);
    if (ferror(w->f) || kept != 0)
        rc = 1;
    if (sim_frag_replay_end(r) != 0)
        rc = 1;
    return rc ? -1 : 0;
}

void cli_tl_spill_close(struct cli_tl_spill *sp)
{
    struct cli_tl_rows *w = sp->w;
    cli_pipe_end(sp->pipe); /* its thread writes into F and FILE */
    sp->pipe = NULL;
    if (!w)
        return;
    if (w->file)
        cli_rows_close(&w->rows); /* its block, when the pipe was not had */
    if (w->f)
        fclose(w->f);
    free(w->b);
    free(w);
    sp->w = NULL;
}
