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
 * process.
 *
 * While the records say nil (sim_frag_nil: frag_gpus is 0), the thread
 * writes each row into timeline.csv itself, and the temporary file keeps
 * only a note of each record (its mark, and its time when its row was left
 * out): should the end find the mix not nil after all, the rows are read
 * back from timeline.csv (docs/streaming.md). */
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
 * the row's text up to its last column ("time,queued,busy_gpus,...,").
 * The records said nil come first, each as a note instead: a varint of
 * (the mark's step from the record before) x 2 + 1 when its row was left
 * out of timeline.csv, then in that case its time (a double); else its text
 * is that row's in timeline.csv, but its last column ("0"). */
struct entry {
    uint64_t mark;
    uint16_t len;
};
#define ENTRY_HEAD (sizeof(uint64_t) + sizeof(uint16_t))
#define ENTRY_MAX (ENTRY_HEAD + CLI_TIMELINE_PREFIX_MAX)
#define VARINT_MAX 10 /* bytes of a uint64_t's varint */

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
    int spec;       /* FILE holds every row so far, F their notes */
    int keep;       /* set before the end: FILE may be committed */
    uint64_t notes; /* records noted so (the first of F) */
    uint64_t mark;  /* the last record's */
    int have;       /* a row in FILE, with these counts: */
    int32_t counts[2 + SIM_MAX_GPU_TYPES]; /* queued, busy, by type */
    FILE *back;                            /* FILE read back, after the end */
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

/* A record said nil: its row into FILE, frag_gpus 0, unless its counts
 * (COUNTS, as struct cli_tl_rows's) repeat the row's before it, as
 * put_row would find (the same text after the time, and the same frag);
 * and its note into the temporary file. */
static void put_nil(struct cli_tl_rows *w, const struct head *h,
                    const int32_t *counts)
{
    int32_t k = 2 + w->ntypes, same = w->have, i;
    for (i = 0; same && i < k; i++) /* a few: no call of memcmp */
        same = counts[i] == w->counts[i];
    uint64_t v = (h->mark - w->mark) << 1 | (uint64_t)same;
    char *p = w->b + w->n;
    for (; v >= 0x80; v >>= 7)
        *p++ = (char)(v | 0x80);
    *p++ = (char)v;
    if (same) {
        memcpy(p, &h->time, sizeof h->time);
        p += sizeof h->time;
    }
    w->n = (size_t)(p - w->b);
    w->mark = h->mark;
    w->notes++;
    if (same)
        return;
    w->have = 1;
    for (i = 0; i < k; i++)
        w->counts[i] = counts[i];
    char *line = cli_rows_room(&w->rows);
    char *end = cli_timeline_prefix(line, h->time, h->queued, h->busy,
                                    counts + 2, w->ntypes);
    end[0] = '0';
    end[1] = '\n';
    cli_rows_put(&w->rows, (size_t)(end + 2 - line));
}

/* The pipe's consumer: each record's entry into the temporary file, or
 * while they say nil, its row into FILE and its note. */
static void put_entries(void *ctx, const char *b, size_t len)
{
    struct cli_tl_rows *w = ctx;
    size_t size = record_size(w->ntypes);
    int32_t counts[2 + SIM_MAX_GPU_TYPES], *by_type = counts + 2;
    for (size_t at = 0; at + size <= len; at += size) {
        struct head h;
        memcpy(&h, b + at, sizeof h);
        const char *busy = b + at + sizeof h;
        for (int32_t t = 0; t < w->ntypes; t++) /* no call of memcpy */
            memcpy(by_type + t, busy + (size_t)t * sizeof *by_type,
                   sizeof *by_type);
        counts[0] = h.queued;
        counts[1] = h.busy;
        if (SPILL_BLOCK - w->n < ENTRY_MAX)
            flush_block(w);
        /* marks never go back (sim.h): a note's step is not negative */
        w->spec = w->spec && h.nil && h.mark >= w->mark;
        if (w->spec) { /* frag_gpus is 0 */
            put_nil(w, &h, counts);
            continue;
        }
        char *e = w->b + w->n, *text = e + ENTRY_HEAD;
        char *end = cli_timeline_prefix(text, h.time, h.queued, h.busy, by_type,
                                        w->ntypes);
        uint16_t n = (uint16_t)(end - text);
        memcpy(e, &h.mark, sizeof h.mark);
        memcpy(e + sizeof h.mark, &n, sizeof n);
        w->n += ENTRY_HEAD + n;
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
    /* the rows written during the run are read back should the mix not be
     * nil after all: FILE is a file of its own (not "-" or a device) */
    *w = (struct cli_tl_rows){
        .ntypes = ntypes, .file = file, .spec = file && !file->x.stream};
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

/* What cli_tl_spill_write reads the temporary file with. */
struct reread {
    struct sim_frag_replay *r;
    struct cli_rows *out;
    struct last_row last; /* OUT's */
    uint64_t notes;       /* still to read, before the entries */
    uint64_t mark;        /* the last note's */
    FILE *back;           /* FILE's rows, after its header */
    size_t len;           /* of row, FILE's last row but its last column */
    char row[CLI_TIMELINE_PREFIX_MAX + 3];
    int bad;
};

/* FILE's next row into RD->row (its text but its last column, "0"); 0, or
 * -1 when there is none or it is not one written by put_nil. */
static int next_back(struct reread *rd)
{
    if (!fgets(rd->row, sizeof rd->row, rd->back))
        return -1;
    size_t n = strlen(rd->row);
    if (n < 3 || memcmp(rd->row + n - 3, ",0\n", 3) != 0)
        return -1;
    rd->len = n - 2;
    return 0;
}

/* The note at B[0, N) of a record said nil, its row put into RD->out; the
 * bytes read, 0 when the note is cut by N (or RD->bad set). */
static size_t put_note(struct reread *rd, const char *b, size_t n)
{
    uint64_t v = 0;
    size_t at = 0;
    for (int shift = 0;; shift += 7) {
        if (at == VARINT_MAX) {
            rd->bad = 1;
            return 0;
        }
        if (at == n)
            return 0;
        unsigned char c = (unsigned char)b[at++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (c < 0x80)
            break;
    }
    char text[CLI_TIMELINE_PREFIX_MAX + 32];
    const char *t = text;
    size_t len;
    if (v & 1) { /* the counts of FILE's row before it, its own time */
        double time;
        const char *key = memchr(rd->row, ',', rd->len);
        if (!key) { /* no row before it */
            rd->bad = 1;
            return 0;
        }
        if (n - at < sizeof time)
            return 0;
        memcpy(&time, b + at, sizeof time);
        at += sizeof time;
        char *e = cli_put_double(text, time);
        memcpy(e, key, (size_t)(rd->row + rd->len - key));
        len = (size_t)(e - text) + (size_t)(rd->row + rd->len - key);
    } else if (next_back(rd) != 0) {
        rd->bad = 1;
        return 0;
    } else {
        t = rd->row;
        len = rd->len;
    }
    rd->mark += v >> 1;
    rd->notes--;
    put_row(rd->out, &rd->last, t, len, sim_frag_replay_gpus(rd->r, rd->mark));
    return at;
}

/* The rows of the whole notes and entries in B[0, N), each left out when
 * it equals the row kept before it; the bytes read. */
static size_t put_rows(struct reread *rd, const char *b, size_t n)
{
    size_t at = 0;
    while (rd->notes) {
        size_t used = put_note(rd, b + at, n - at);
        if (!used) /* cut, or RD->bad */
            return at;
        at += used;
    }
    while (n - at >= ENTRY_HEAD) {
        struct entry e;
        memcpy(&e.mark, b + at, sizeof e.mark);
        memcpy(&e.len, b + at + sizeof e.mark, sizeof e.len);
        if (n - at - ENTRY_HEAD < e.len)
            break;
        const char *text = b + at + ENTRY_HEAD;
        at += ENTRY_HEAD + e.len;
        put_row(rd->out, &rd->last, text, e.len,
                sim_frag_replay_gpus(rd->r, e.mark));
    }
    return at;
}

/* FILE opened again for reading, past its header, before it is aborted:
 * its rows are the text of the records noted. */
static void read_back(struct cli_tl_rows *w)
{
    int c;
    if (exp_file_flush(&w->file->x) != 0 ||
        !(w->back = fopen(w->file->x.tmp, "r"))) {
        w->bad = 1;
        return;
    }
    while ((c = getc(w->back)) != EOF && c != '\n')
        ;
    if (c == EOF)
        w->bad = 1;
}

int cli_tl_spill_written(struct cli_tl_spill *sp)
{
    struct cli_tl_rows *w = sp->w;
    w->keep = 1;            /* read by the thread after the pipe's lock */
    cli_pipe_end(sp->pipe); /* every row written */
    sp->pipe = NULL;
    /* the jobs read after the last record count too */
    if (w->spec && sp->nil && sim_frag_nil(sp->s))
        return 1;
    if (w->notes)
        read_back(w);
    return 0;
}

int cli_tl_spill_write(struct cli_tl_spill *sp, FILE *f,
                       const struct cluster *c)
{
    struct cli_tl_rows *w = sp->w;
    struct cli_rows out;
    struct reread rd = {.out = &out, .notes = w->notes, .back = w->back};
    cli_pipe_end(sp->pipe); /* every entry in the file */
    sp->pipe = NULL;
    int rc = sim_frag_replay_begin(sp->s, &rd.r) != 0 || w->bad ||
             (w->notes && !w->back) || fseek(w->f, 0, SEEK_SET) != 0;
    cli_timeline_header(f, c);
    cli_rows_open(&out, f);
    size_t kept = 0; /* bytes of an entry cut by the block's end */
    while (!rc && !rd.bad) {
        size_t got = fread(w->b + kept, 1, SPILL_BLOCK - kept, w->f);
        size_t n = kept + got;
        size_t used = put_rows(&rd, w->b, n);
        kept = n - used;
        memmove(w->b, w->b + used, kept);
        if (got == 0)
            break;
    }
    cli_rows_close(&out);
    /* every note read, and every row of FILE with them */
    if (ferror(w->f) || kept != 0 || rd.bad || rd.notes != 0 ||
        (w->back && (getc(w->back) != EOF || ferror(w->back))))
        rc = 1;
    if (sim_frag_replay_end(rd.r) != 0)
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
    if (w->back)
        fclose(w->back);
    free(w->b);
    free(w);
    sp->w = NULL;
}
