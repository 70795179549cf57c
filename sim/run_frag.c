/* run_frag.c -- FGD's fragmentation (frag.c; Weng et al., ATC'23, section
 * 3.2) of the engine's whole-GPU cluster, kept up to date as GPUs are taken
 * and freed, and integrated over time for sim_summary.frag_rate_mean.
 *
 * With whole GPUs only, a node's free GPUs are all fully free, so a task
 * that fits a node leaves no fragment there and one that does not fit
 * (GPU type not allowed, or more GPUs than the node has free) sees all f
 * free GPUs as fragments. Against the workload of all the engine's jobs,
 * task types (GPU count k, allowed types), a node of type t with f free
 * GPUs has F(t, f) = f x P(a job may not use t, or asks k > f). That is a
 * table per type over f = 0 .. most GPUs per node, built once; a change of
 * one node's free count moves the cluster's sum by one difference. As in
 * FGD, a task fits a node only if that node alone holds it: the engine's
 * spread placements are not counted. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

/* Values are kept as integers, N x F (N jobs), so that the running sum is
 * exact and the value printed at any time equals a sum from scratch. */
struct sim_frag {
    int64_t *table; /* N x F(t, f), type t at off[t] + f */
    int32_t off[SIM_MAX_GPU_TYPES];
    int64_t sum; /* N x the cluster's fragmentation now */
    double area; /* N x its integral up to last_t */
    double last_t;
    /* A streaming run (stream.c) learns N and the jobs' mix only at the
     * end: table then counts jobs by (type, GPUs) as they are read, and
     * each update is logged (to a temporary file once the block is full)
     * and replayed in sim_frag_area, with the same operations in the same
     * order, so the same double. */
    int deferred;
    int32_t cells;
    int cw;        /* bits of a cell's index in the log's words */
    uint32_t *log; /* (FRAG_LOG) words: see log_update */
    size_t nlog;
    FILE *spill;
    uint64_t spilled; /* words written to spill */
    int replayed;     /* a replay read the whole log: its area, */
    double replayed_area; /* so that the log is read back only once */
    double first_t, log_t;
    uint64_t log_bits; /* log_t's bits once logged, else 0 */
};

/* The log: a word per update, cell FROM in its low cw bits (cw: as many
 * as the cells' indices need), TO in the next cw, and in bits 30-31 where
 * the update's time is. FRAG_SAME: the previous update's. Otherwise the
 * time's double is known by its bits, from D, their difference from the
 * last time's bits (0 before the first) modulo 2^64, so exact whatever D
 * is: FRAG_INLINE, D in the word's spare bits (2cw to 29); FRAG_DELTA, D's
 * bits from 32 up there and its low 32 bits in the next word; FRAG_FULL,
 * the bits themselves in the next two words, low half first. Times go up,
 * and the bits of doubles >= 0 with them, so D is far below 2^54: an
 * update at a new time takes 2 words (1 when events are very close), not
 * 3, and the 1-GPU jobs of the bench's FIFO runs 4 words each, not 6. */
#define FRAG_LOG ((size_t)1 << 18)
#define FRAG_MAX_CELLS (1 << 15)
enum { FRAG_SAME, FRAG_INLINE, FRAG_DELTA, FRAG_FULL };

/* N x F(t, .) from the jobs: f x (N - jobs allowed on t with k <= f). */
static void fill_type(struct sim *s, int32_t t, int64_t *row, int32_t maxf)
{
    int64_t fit = 0;
    memset(row, 0, (size_t)(maxf + 1) * sizeof *row);
    for (size_t j = 0; j < s->njobs; j++) { /* row[k] counts jobs first */
        const struct sim_job *job = sim_job_at(s, j);
        if ((job->allowed >> t & 1u) && job->num_gpus <= maxf)
            row[job->num_gpus]++;
    }
    for (int32_t f = 0; f <= maxf; f++) {
        fit += row[f];
        row[f] = f * ((int64_t)s->njobs - fit);
    }
}

int sim_frag_init(struct sim *s)
{
    const struct cluster *c = s->cluster;
    int32_t cells = 0;
    struct sim_frag *fr = calloc(1, sizeof *fr);
    if (!fr)
        return SIM_ENOMEM;
    for (int32_t t = 0; t < c->ntypes; t++) {
        fr->off[t] = cells;
        cells += c->types[t].max_per_node + 1;
    }
    fr->table = malloc((size_t)cells * sizeof *fr->table);
    if (!fr->table) {
        free(fr);
        return SIM_ENOMEM;
    }
    fr->cells = cells;
    if (s->stream) {
        memset(fr->table, 0, (size_t)cells * sizeof *fr->table);
        fr->deferred = 1;
        fr->log_t = NAN;
        while (fr->cw < 15 && (1 << fr->cw) < cells)
            fr->cw++;
        s->frag = fr;
        if (cells > FRAG_MAX_CELLS)
            return SIM_EINVAL;
        if (!(fr->log = sim_huge_alloc(FRAG_LOG * sizeof *fr->log, 1)))
            return SIM_ENOMEM; /* freed by sim_frag_free */
        return 0;
    }
    for (int32_t t = 0; t < c->ntypes; t++)
        fill_type(s, t, fr->table + fr->off[t], c->types[t].max_per_node);
    for (int32_t i = 0; i < c->nnodes; i++)
        fr->sum += fr->table[fr->off[c->nodes[i].gpu_type] + s->node_free[i]];
    fr->last_t = s->njobs ? sim_job_at(s, s->order[0])->submit_time : 0;
    s->frag = fr;
    return 0;
}

static void log_word(struct sim *s, struct sim_frag *fr, uint32_t w)
{
    if (fr->nlog == FRAG_LOG) {
        if ((!fr->spill && !(fr->spill = tmpfile())) ||
            fwrite(fr->log, sizeof *fr->log, FRAG_LOG, fr->spill) != FRAG_LOG)
            s->oom = 1; /* the run stops: out of memory (or of disk) */
        fr->spilled += FRAG_LOG;
        fr->nlog = 0;
    }
    fr->log[fr->nlog++] = w;
}

static void log_update(struct sim *s, struct sim_frag *fr, uint32_t from,
                       uint32_t to)
{
    uint32_t w = from | to << fr->cw;
    if (s->now == fr->log_t) {
        log_word(s, fr, w | (uint32_t)FRAG_SAME << 30);
        return;
    }
    uint64_t b;
    memcpy(&b, &s->now, sizeof b);
    uint64_t d = b - fr->log_bits; /* modulo 2^64 */
    int spare = 30 - 2 * fr->cw;   /* the word's bits left */
    if (d >> spare == 0)
        log_word(s, fr,
                 w | (uint32_t)d << 2 * fr->cw | (uint32_t)FRAG_INLINE << 30);
    else if (d >> 32 >> spare == 0) {
        log_word(s, fr,
                 w | (uint32_t)(d >> 32) << 2 * fr->cw |
                     (uint32_t)FRAG_DELTA << 30);
        log_word(s, fr, (uint32_t)d);
    } else {
        log_word(s, fr, w | (uint32_t)FRAG_FULL << 30);
        log_word(s, fr, (uint32_t)b);
        log_word(s, fr, (uint32_t)(b >> 32));
    }
    fr->log_t = s->now;
    fr->log_bits = b;
}

void sim_frag_update(struct sim *s, int32_t node, int32_t old_free,
                     int32_t new_free)
{
    struct sim_frag *fr = s->frag;
    int32_t off = fr->off[s->cluster->nodes[node].gpu_type];
    if (fr->deferred) {
        log_update(s, fr, (uint32_t)(off + old_free),
                   (uint32_t)(off + new_free));
        return;
    }
    const int64_t *row = fr->table + off;
    fr->area += (double)fr->sum * (s->now - fr->last_t);
    fr->last_t = s->now;
    fr->sum += row[new_free] - row[old_free];
}

int sim_frag_current(const struct sim *s)
{
    return !s->frag->deferred && s->frag->last_t == s->now;
}

void sim_frag_touch(struct sim *s, int32_t node)
{
    if (!sim_frag_current(s)) /* else it would add 0 */
        sim_frag_update(s, node, s->node_free[node], s->node_free[node]);
}

void sim_frag_count_job(struct sim *s, uint32_t j)
{
    struct sim_frag *fr = s->frag;
    const struct sim_job *job = sim_job_at(s, j);
    if (j == 0)
        fr->first_t = job->submit_time;
    for (int32_t t = 0; t < s->cluster->ntypes; t++)
        if ((job->allowed >> t & 1u) &&
            job->num_gpus <= s->cluster->types[t].max_per_node)
            fr->table[fr->off[t] + job->num_gpus]++; /* counts, as fill_type */
}

/* The log's words: the spilled blocks, then the block in memory. */
struct words {
    FILE *f;
    uint32_t *buf; /* (FRAG_LOG) */
    const uint32_t *p, *end, *tail;
    size_t ntail;
};

static int get_word(struct words *w, uint32_t *out)
{
    while (w->p == w->end) {
        size_t got = w->f ? fread(w->buf, sizeof *w->buf, FRAG_LOG, w->f) : 0;
        if (got) {
            w->p = w->buf;
            w->end = w->buf + got;
            continue;
        }
        w->f = NULL;
        if (!w->tail)
            return 0;
        w->p = w->tail;
        w->end = w->tail + w->ntail;
        w->tail = NULL;
    }
    *out = *w->p++;
    return 1;
}

/* A replay of a streaming run's log: the table from the counts, then the
 * log's updates with sim_frag_update's operations in its order, so the
 * same sums and the same area as a whole-trace run. */
struct sim_frag_replay {
    const struct sim *s;
    int64_t *row; /* N x F, as fr->table of a whole-trace run */
    struct words w;
    uint64_t pos; /* words read */
    int64_t sum;
    double area, last_t, now;
    uint64_t bits; /* the last time read's, as log_update's log_bits */
    int bad;       /* a read failed or the log was cut short */
};

int sim_frag_replay_begin(const struct sim *s, struct sim_frag_replay **out)
{
    const struct sim_frag *fr = s->frag;
    const struct cluster *c = s->cluster;
    struct sim_frag_replay *r = calloc(1, sizeof *r);
    *out = r;
    if (!r)
        return SIM_ENOMEM;
    r->s = s;
    if (!fr || !fr->deferred)
        return 0; /* nothing logged: sim_frag_replay_gpus says as the run */
    r->row = malloc((size_t)fr->cells * sizeof *r->row);
    r->w = (struct words){
        fr->spill, sim_huge_alloc(FRAG_LOG * sizeof(uint32_t), 1),
        NULL,      NULL,
        fr->log,   fr->nlog};
    r->bad = 1; /* until it can be read */
    if (!r->row || !r->w.buf)
        return SIM_ENOMEM;
    if (fr->spill && fseek(fr->spill, 0, SEEK_SET))
        return SIM_EIO;
    r->bad = 0;
    for (int32_t t = 0; t < c->ntypes; t++) { /* as fill_type */
        int64_t fit = 0;
        for (int32_t f = 0; f <= c->types[t].max_per_node; f++) {
            fit += fr->table[fr->off[t] + f];
            r->row[fr->off[t] + f] = f * ((int64_t)s->njobs - fit);
        }
    }
    for (int32_t i = 0; i < c->nnodes; i++)
        r->sum += r->row[fr->off[c->nodes[i].gpu_type] + c->nodes[i].gpus];
    r->last_t = r->now = fr->first_t;
    return 0;
}

/* Replays the log's updates up to word MARK (all: UINT64_MAX). */
static void replay_to(struct sim_frag_replay *r, uint64_t mark)
{
    int cw = r->s->frag->cw;
    uint32_t x, lo, hi = 0, cell = (1u << cw) - 1;
    while (r->pos < mark && get_word(&r->w, &x)) {
        r->pos++;
        /* what the word holds above its cells: D, or D's bits from 32 */
        uint32_t kind = x >> 30, high = (x & ((1u << 30) - 1)) >> 2 * cw;
        if (kind == FRAG_INLINE)
            r->bits += high;
        else if (kind != FRAG_SAME) {
            if (!get_word(&r->w, &lo) ||
                (kind == FRAG_FULL && !get_word(&r->w, &hi))) {
                r->bad = 1;
                return;
            }
            r->pos += kind == FRAG_FULL ? 2 : 1;
            r->bits = kind == FRAG_FULL ? lo | (uint64_t)hi << 32
                                        : r->bits + ((uint64_t)high << 32 | lo);
        }
        if (kind != FRAG_SAME)
            memcpy(&r->now, &r->bits, sizeof r->now);
        r->area += (double)r->sum * (r->now - r->last_t);
        r->last_t = r->now;
        r->sum += r->row[x >> cw & cell] - r->row[x & cell];
    }
    if (r->pos < mark && mark != UINT64_MAX)
        r->bad = 1;
}

double sim_frag_replay_gpus(struct sim_frag_replay *r, uint64_t mark)
{
    const struct sim *s = r->s;
    if (!r->row)
        return sim_frag_gpus(s);
    replay_to(r, mark);
    return s->njobs ? (double)r->sum / (double)s->njobs : 0;
}

int sim_frag_replay_end(struct sim_frag_replay *r)
{
    if (!r)
        return 0;
    struct sim_frag *fr = r->s->frag;
    if (r->row && !r->bad) /* the rest of the log, for sim_frag_area */
        replay_to(r, UINT64_MAX);
    int rc = r->bad || (r->row && fr->spill && ferror(fr->spill)) ? SIM_EIO : 0;
    if (r->row && rc == 0) {
        fr->replayed = 1;
        fr->replayed_area = r->area;
    }
    free(r->row);
    free(r->w.buf);
    free(r);
    return rc;
}

uint64_t sim_frag_mark(const struct sim *s)
{
    const struct sim_frag *fr = s->frag;
    return fr ? fr->spilled + fr->nlog : 0;
}

int sim_frag_nil(const struct sim *s)
{
    const struct sim_frag *fr = s->frag;
    const struct cluster *c = s->cluster;
    if (s->share || !fr || !fr->deferred)
        return 0; /* not asked there: see sim.h */
    /* F(t, f) = f x (jobs that may not use t or ask more than f GPUs), and
     * f = 1 has the most of them, f = 0 none */
    for (int32_t t = 0; t < c->ntypes; t++)
        if (c->types[t].max_per_node >= 1 &&
            fr->table[fr->off[t]] + fr->table[fr->off[t] + 1] !=
                (int64_t)s->njobs)
            return 0;
    return 1;
}

double sim_frag_key(const struct sim *s)
{
    if (s->frag && s->frag->deferred)
        return (double)sim_frag_mark(s);
    return sim_frag_gpus(s);
}

/* A streaming run's area: its whole log replayed (once). */
static double deferred_area(const struct sim *s)
{
    /* Every job may run on one GPU of any type: the replay's table is all
     * 0 (f x no job), so its area a sum of 0 x (times that never go back),
     * +0 as the whole-trace run's, without reading the log back (23 MB,
     * 100 M instructions, for the bench's 1M jobs). */
    if (sim_frag_nil(s))
        return 0;
    if (!s->frag->replayed) { /* the replay's end reads the whole log */
        struct sim_frag_replay *r;
        int rc = sim_frag_replay_begin(s, &r);
        if (sim_frag_replay_end(r) != 0 || rc != 0)
            return NAN;
    }
    return s->frag->replayed_area;
}

void sim_frag_free(struct sim *s)
{
    if (s->frag) {
        free(s->frag->table);
        free(s->frag->log);
        if (s->frag->spill)
            fclose(s->frag->spill);
    }
    free(s->frag);
    s->frag = NULL;
}

double sim_frag_area(const struct sim *s)
{
    if (s->share)
        return s->share->frag_area / SHARE_MILLI;
    if (s->frag && s->frag->deferred && s->njobs)
        return deferred_area(s) / (double)s->njobs;
    return s->frag && s->njobs ? s->frag->area / (double)s->njobs : 0;
}

double sim_frag_gpus(const struct sim *s)
{
    if (s->share)
        return sim_share_frag_gpus(s);
    if (s->frag && s->frag->deferred)
        return 0; /* not known before the end (a streaming run) */
    return s->frag && s->njobs ? (double)s->frag->sum / (double)s->njobs : 0;
}
