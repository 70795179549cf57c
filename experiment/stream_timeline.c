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

/* A record handed over: time, mark, queued, busy, then busy GPUs of each
 * type. */
struct head {
    double time;
    uint64_t mark;
    int32_t queued, busy;
};

static size_t record_size(int32_t ntypes)
{
    return sizeof(struct head) + (size_t)ntypes * sizeof(int32_t);
}

/* An entry of the file: the mark, the length of the text, then the row's
 * text up to its last column ("time,queued,busy_gpus,busy_...,"). */
struct entry {
    uint64_t mark;
    uint16_t len;
};
#define ENTRY_HEAD (sizeof(uint64_t) + sizeof(uint16_t))
#define ENTRY_MAX (ENTRY_HEAD + CLI_TIMELINE_PREFIX_MAX)

/* The row kept last, as put_rows compares the next with it. */
struct last_row {
    int have;
    double frag;
    size_t klen, frag_len;
    char key[CLI_TIMELINE_PREFIX_MAX]; /* its text after the time */
    char frag_text[32];                /* frag's */
};

static void flush_block(struct cli_tl_spill *sp)
{
    if (sp->n && fwrite(sp->b, 1, sp->n, sp->f) != sp->n)
        sp->bad = 1;
    sp->n = 0;
}

/* The pipe's consumer: each record's entry into the file. */
static void put_entries(void *ctx, const char *b, size_t len)
{
    struct cli_tl_spill *sp = ctx;
    size_t size = record_size(sp->ntypes);
    int32_t by_type[SIM_MAX_GPU_TYPES];
    for (size_t at = 0; at + size <= len; at += size) {
        struct head h;
        memcpy(&h, b + at, sizeof h);
        memcpy(by_type, b + at + sizeof h,
               (size_t)sp->ntypes * sizeof *by_type);
        if (SPILL_BLOCK - sp->n < ENTRY_MAX)
            flush_block(sp);
        char *e = sp->b + sp->n, *text = e + ENTRY_HEAD;
        char *end = cli_timeline_prefix(text, h.time, h.queued, h.busy, by_type,
                                        sp->ntypes);
        uint16_t n = (uint16_t)(end - text);
        memcpy(e, &h.mark, sizeof h.mark);
        memcpy(e + sizeof h.mark, &n, sizeof n);
        sp->n += ENTRY_HEAD + n;
    }
}

static void entries_done(void *ctx)
{
    struct cli_tl_spill *sp = ctx;
    flush_block(sp);
    if (fflush(sp->f) != 0)
        sp->bad = 1;
}

int cli_tl_spill_open(struct cli_tl_spill *sp, const struct sim *s,
                      int32_t ntypes)
{
    *sp = (struct cli_tl_spill){.s = s, .ntypes = ntypes};
    sp->f = tmpfile();
    sp->b = malloc(SPILL_BLOCK);
    if (sp->f && sp->b)
        sp->pipe = cli_pipe_start(put_entries, entries_done, sp);
    if (!sp->pipe) {
        cli_tl_spill_close(sp);
        return -1;
    }
    return 0;
}

void cli_tl_spill_change(void *ctx, double time, int32_t queued, int32_t busy,
                         const int32_t *busy_by_type)
{
    struct cli_tl_spill *sp = ctx;
    size_t size = record_size(sp->ntypes);
    char *p = cli_pipe_room(sp->pipe, size);
    struct head h = {time, sim_frag_mark(sp->s), queued, busy};
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
        double frag = sim_frag_replay_gpus(r, e.mark);
        /* the counts: the text after the time (same numbers, same text) */
        const char *key = memchr(text, ',', e.len);
        if (!key)
            key = text + e.len;
        size_t klen = (size_t)(text + e.len - key);
        if (last->have && frag == last->frag && klen == last->klen &&
            memcmp(key, last->key, klen) == 0)
            continue;
        if (!last->have || memcmp(&frag, &last->frag, sizeof frag) != 0) {
            char *fe = cli_put_double(last->frag_text, frag);
            last->frag_len = (size_t)(fe - last->frag_text);
        }
        last->have = 1;
        last->frag = frag;
        last->klen = klen;
        memcpy(last->key, key, klen);
        char *line = cli_rows_room(out);
        memcpy(line, text, e.len);
        memcpy(line + e.len, last->frag_text, last->frag_len);
        line[e.len + last->frag_len] = '\n';
        cli_rows_put(out, e.len + last->frag_len + 1);
    }
    return at;
}

int cli_tl_spill_write(struct cli_tl_spill *sp, FILE *f,
                       const struct cluster *c)
{
    struct sim_frag_replay *r;
    struct last_row last = {0};
    cli_pipe_end(sp->pipe); /* every entry in the file */
    sp->pipe = NULL;
    int rc = sim_frag_replay_begin(sp->s, &r) != 0 || sp->bad ||
             fseek(sp->f, 0, SEEK_SET) != 0;
    struct cli_rows out;
    cli_timeline_header(f, c);
    cli_rows_open(&out, f);
    size_t kept = 0; /* bytes of an entry cut by the block's end */
    while (!rc) {
        size_t got = fread(sp->b + kept, 1, SPILL_BLOCK - kept, sp->f);
        size_t n = kept + got;
        size_t used = put_rows(r, sp->b, n, &out, &last);
        kept = n - used;
        memmove(sp->b, sp->b + used, kept);
        if (got == 0)
            break;
    }
    cli_rows_close(&out);
    if (ferror(sp->f) || kept != 0)
        rc = 1;
    if (sim_frag_replay_end(r) != 0)
        rc = 1;
    return rc ? -1 : 0;
}

void cli_tl_spill_close(struct cli_tl_spill *sp)
{
    cli_pipe_end(sp->pipe); /* its thread writes into F */
    sp->pipe = NULL;
    if (sp->f)
        fclose(sp->f);
    free(sp->b);
    sp->f = NULL;
    sp->b = NULL;
}
