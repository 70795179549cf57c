/* stream_timeline.c -- timeline.csv of a streaming run (stream_run.c).
 *
 * Its frag_gpus column measures the cluster against the whole trace's
 * mix of jobs, which a streaming run knows only at its end (sim.h,
 * sim_frag_mark). So the observer's rows go to a temporary file in binary,
 * each with its mark, and are written out after the run: the fragmentation
 * replayed up to each mark, and a row left out when it repeats the row
 * before it, as a whole-trace run's observer leaves it out. The engine
 * calls the observer at least whenever a whole-trace run's would, so the
 * rows are the same bytes. Memory stays one block; the file is unlinked
 * from the start (tmpfile), so it does not outlive the process. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SPILL_BLOCK ((size_t)1 << 20)

/* A record: time, mark, queued, busy, then busy GPUs of each type. */
struct head {
    double time;
    uint64_t mark;
    int32_t queued, busy;
};

static size_t record_size(int32_t ntypes)
{
    return sizeof(struct head) + (size_t)ntypes * sizeof(int32_t);
}

int cli_tl_spill_open(struct cli_tl_spill *sp, const struct sim *s,
                      int32_t ntypes)
{
    *sp = (struct cli_tl_spill){.s = s, .ntypes = ntypes};
    sp->f = tmpfile();
    sp->b = malloc(SPILL_BLOCK);
    if (!sp->f || !sp->b) {
        cli_tl_spill_close(sp);
        return -1;
    }
    return 0;
}

static void flush_block(struct cli_tl_spill *sp)
{
    if (sp->n && fwrite(sp->b, 1, sp->n, sp->f) != sp->n)
        sp->bad = 1;
    sp->n = 0;
}

void cli_tl_spill_change(void *ctx, double time, int32_t queued, int32_t busy,
                         const int32_t *busy_by_type)
{
    struct cli_tl_spill *sp = ctx;
    size_t size = record_size(sp->ntypes);
    if (SPILL_BLOCK - sp->n < size)
        flush_block(sp);
    struct head h = {time, sim_frag_mark(sp->s), queued, busy};
    memcpy(sp->b + sp->n, &h, sizeof h);
    memcpy(sp->b + sp->n + sizeof h, busy_by_type,
           (size_t)sp->ntypes * sizeof *busy_by_type);
    sp->n += size;
}

/* The rows of the records in B[0, N) not equal to the row before (LAST,
 * with *HAVE when there was one). */
static void put_rows(struct cli_tl_spill *sp, struct sim_frag_replay *r,
                     const char *b, size_t n, struct cli_rows *out, char *last,
                     double *last_frag, int *have)
{
    size_t size = record_size(sp->ntypes);
    size_t key = size - offsetof(struct head, queued);
    for (size_t at = 0; at + size <= n; at += size) {
        struct head h;
        memcpy(&h, b + at, sizeof h);
        double frag = sim_frag_replay_gpus(r, h.mark);
        const char *rec = b + at + offsetof(struct head, queued);
        if (*have && frag == *last_frag && memcmp(rec, last, key) == 0)
            continue;
        *have = 1;
        *last_frag = frag;
        memcpy(last, rec, key);
        int32_t by_type[SIM_MAX_GPU_TYPES];
        memcpy(by_type, b + at + sizeof h,
               (size_t)sp->ntypes * sizeof *by_type);
        char *line = cli_rows_room(out);
        char *end = cli_timeline_row(line, h.time, h.queued, h.busy, by_type,
                                     sp->ntypes, frag);
        cli_rows_put(out, (size_t)(end - line));
    }
}

int cli_tl_spill_write(struct cli_tl_spill *sp, FILE *f,
                       const struct cluster *c)
{
    struct sim_frag_replay *r;
    char last[sizeof(int32_t) * (2 + SIM_MAX_GPU_TYPES)];
    double last_frag = 0;
    int have = 0;
    size_t size = record_size(sp->ntypes);
    flush_block(sp);
    int rc = sim_frag_replay_begin(sp->s, &r) != 0 || sp->bad ||
             fflush(sp->f) != 0 || fseek(sp->f, 0, SEEK_SET) != 0;
    struct cli_rows out;
    cli_timeline_header(f, c);
    cli_rows_open(&out, f);
    size_t kept = 0; /* bytes of a record cut by the block's end */
    while (!rc) {
        size_t got = fread(sp->b + kept, 1, SPILL_BLOCK - kept, sp->f);
        size_t n = kept + got;
        put_rows(sp, r, sp->b, n, &out, last, &last_frag, &have);
        kept = n % size;
        memmove(sp->b, sp->b + n - kept, kept);
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
    if (sp->f)
        fclose(sp->f);
    free(sp->b);
    sp->f = NULL;
    sp->b = NULL;
}
