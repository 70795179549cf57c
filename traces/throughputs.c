/* throughputs.c -- Gavel's measured throughputs (simulation_throughputs.json).
 *
 * The file maps a worker type to "('job type', scale factor)" keys, each
 * holding "null" (steps/s of the job alone) and "('other type', sf)" pairs
 * ([this job's steps/s, the other's] when the two share the GPUs). Keys are
 * Python tuple literals. A "<worker>_unconsolidated" worker type holds the
 * same measurements with the job's GPUs spread over servers.
 *
 * cJSON's tree is walked twice: the first walk checks everything and
 * collects the names and GPU counts, so that the second can fill tables of
 * the right size. Single-job throughputs are a dense table indexed by
 * (worker, spread, job type, GPU count), NAN where the file has no entry;
 * pairs are sparse (about 1,800 of 10,000 possible per worker type), sorted
 * by one 64-bit key for binary search. */
#include "traces_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TP_MAX_FILE ((size_t)256 << 20)
#define TP_BLOCK ((size_t)1 << 20)
#define TP_MAX_NAME 255
#define TP_SPREAD_SUFFIX "_unconsolidated"
#define TP_KEY_RULE "expected ('job type', count)"
#define TP_MAX_THROUGHPUT 1e9
#define TP_MAX_CELLS ((size_t)1 << 22) /* single-job cells, both spreads */
#define TP_RULE "a number from 0 to 1e9"

/* A parsed tuple key. */
struct tp_key {
    char type[TP_MAX_NAME + 1];
    size_t len;
    int32_t sf;
};

struct loader {
    struct trace_throughputs *m;
    const char *path;
    struct trace_error *e;
    int fill; /* 0: first walk (check, collect), 1: second walk (fill) */
};

/* ---- tuple keys --------------------------------------------------------- */

static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Reads a quoted string at p into k; returns the byte after the closing
 * quote, or NULL with *why set. */
static const char *parse_quoted(const char *p, struct tp_key *k,
                                const char **why)
{
    char q = *p++, c;
    k->len = 0;
    while ((c = *p++) != q) {
        if (c == '\0') {
            *why = "the job type has no closing quote";
            return NULL;
        }
        if (c == '\\') {
            if ((c = *p++) == '\0' || !strchr("\\'\"ntr", c)) {
                *why = "unknown escape in the job type";
                return NULL;
            }
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        if (k->len == TP_MAX_NAME) {
            *why = "the job type is longer than 255 bytes";
            return NULL;
        }
        k->type[k->len++] = c;
    }
    k->type[k->len] = '\0';
    return p;
}

/* Parses "('text', int)" (single or double quotes, backslash escapes,
 * blanks between the tokens); returns NULL or why it is not one. */
static const char *parse_tuple(const char *s, struct tp_key *k)
{
    const char *p = skip_spaces(s), *why = NULL;
    int64_t sf = 0;
    if (*p++ != '(')
        return "it does not start with (";
    p = skip_spaces(p);
    if (*p != '\'' && *p != '"')
        return "the job type must be quoted";
    if (!(p = parse_quoted(p, k, &why)))
        return why;
    if (k->len == 0)
        return "the job type is empty";
    p = skip_spaces(p);
    if (*p++ != ',')
        return "no comma after the job type";
    p = skip_spaces(p);
    if (*p < '0' || *p > '9')
        return "the count must be an integer >= 1";
    for (; *p >= '0' && *p <= '9'; p++)
        if ((sf = sf * 10 + (*p - '0')) > INT32_MAX)
            return "the count is too large";
    if (sf < 1)
        return "the count must be an integer >= 1";
    p = skip_spaces(p);
    if (*p++ != ')')
        return "no ) after the count";
    if (*skip_spaces(p) != '\0')
        return "text after the )";
    k->sf = (int32_t)sf;
    return NULL;
}

/* ---- names and GPU counts ---------------------------------------------- */

static int add_name(struct trace_throughputs *m, struct trace_tp_names *names,
                    const char *s, size_t len)
{
    if (names->n == names->cap) {
        size_t cap = names->cap ? 2 * names->cap : 32;
        uint32_t *str = realloc(names->str, cap * sizeof *str);
        if (str)
            names->str = str;
        uint32_t *hash = str ? realloc(names->hash, cap * sizeof *hash) : NULL;
        if (!hash)
            return TRACE_ENOMEM;
        names->hash = hash;
        names->cap = cap;
    }
    names->hash[names->n] = trace_hash(s, len);
    return trace_strpool_append(m->pool, s, len, &names->str[names->n++]);
}

/* First walk: notes the job type and GPU count of k. */
static int collect_key(struct trace_throughputs *m, const struct tp_key *k)
{
    size_t at = 0;
    if (trace_tp_find_type(m, k->type, k->len) < 0 &&
        add_name(m, &m->types, k->type, k->len))
        return TRACE_ENOMEM;
    if (trace_tp_find_sf(m, k->sf) >= 0)
        return 0;
    if (m->nsf == m->sfcap) {
        size_t cap = m->sfcap ? 2 * m->sfcap : 8;
        int32_t *sfs = realloc(m->sfs, cap * sizeof *sfs);
        if (!sfs)
            return TRACE_ENOMEM;
        m->sfs = sfs;
        m->sfcap = cap;
    }
    while (at < m->nsf && m->sfs[at] < k->sf)
        at++;
    memmove(m->sfs + at + 1, m->sfs + at, (m->nsf - at) * sizeof *m->sfs);
    m->sfs[at] = k->sf;
    m->nsf++;
    return 0;
}

/* Index of (type, sf) among all cells of a worker type. */
static size_t cell_of(const struct trace_throughputs *m, const struct tp_key *k)
{
    return (size_t)trace_tp_find_type(m, k->type, k->len) * m->nsf +
           (size_t)trace_tp_find_sf(m, k->sf);
}

/* Sizes the tables after the first walk. */
static int allocate_tables(struct trace_throughputs *m)
{
    size_t cells = m->workers.n * 2 * m->types.n * m->nsf;
    m->alone = malloc((cells ? cells : 1) * sizeof *m->alone);
    m->pairs = malloc((m->pcap ? m->pcap : 1) * sizeof *m->pairs);
    if (!m->alone || !m->pairs)
        return TRACE_ENOMEM;
    for (size_t i = 0; i < cells; i++)
        m->alone[i] = NAN;
    return 0;
}

/* ---- walking the JSON tree --------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(struct loader *L, const char *fmt, ...)
{
    char text[sizeof L->e->text];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    trace_error_set(L->e, L->path, 0, 0, "%s", text);
    return TRACE_EPARSE;
}

/* A throughput: a number from 0 (cannot run there) to TP_MAX_THROUGHPUT.
 * The bound (Gavel's largest is 699 steps/s) keeps every value scaled to
 * up to INT32_MAX GPUs finite. */
static int is_throughput(const cJSON *x)
{
    return cJSON_IsNumber(x) && x->valuedouble >= 0 &&
           x->valuedouble <= TP_MAX_THROUGHPUT;
}

/* Where an entry sits, for error texts and for the tables. */
struct place {
    const char *worker, *job; /* keys as written */
    size_t w;                 /* worker index (second walk) */
    int spread;
    size_t cell; /* (type, sf) of the job (second walk) */
};

static int walk_pair(struct loader *L, const cJSON *item,
                     const struct place *at)
{
    struct trace_throughputs *m = L->m;
    struct tp_key k;
    const char *why = parse_tuple(item->string, &k);
    if (why)
        return fail(L, "%s: key \"%s\": key \"%s\": " TP_KEY_RULE ": %s",
                    at->worker, at->job, item->string, why);
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2 ||
        !is_throughput(item->child) || !is_throughput(item->child->next))
        return fail(L,
                    "%s: key \"%s\": key \"%s\" must be [a, b], the "
                    "throughputs of the two jobs (each " TP_RULE ")",
                    at->worker, at->job, item->string);
    if (!L->fill) {
        m->pcap++;
        return collect_key(m, &k);
    }
    m->pairs[m->npairs++] = (struct trace_tp_pair){
        trace_tp_pair_key(m, at->w, at->spread, at->cell, cell_of(m, &k)),
        item->child->valuedouble, item->child->next->valuedouble};
    return 0;
}

static int walk_job(struct loader *L, const cJSON *job, struct place *at)
{
    struct trace_throughputs *m = L->m;
    const cJSON *alone = cJSON_GetObjectItemCaseSensitive(job, "null");
    struct tp_key k;
    const char *why = parse_tuple(job->string, &k);
    int rc = 0;
    at->job = job->string;
    if (why)
        return fail(L, "%s: key \"%s\": " TP_KEY_RULE ": %s", at->worker,
                    job->string, why);
    if (!cJSON_IsObject(job))
        return fail(L, "%s: key \"%s\" must be an object", at->worker,
                    job->string);
    if (!alone)
        return fail(L, "%s: key \"%s\" has no \"null\" (the job alone)",
                    at->worker, job->string);
    if (!is_throughput(alone) && cJSON_IsNumber(alone))
        return fail(L, "%s: key \"%s\": \"null\" must be " TP_RULE ", got %g",
                    at->worker, job->string, alone->valuedouble);
    if (!is_throughput(alone))
        return fail(L, "%s: key \"%s\": \"null\" must be " TP_RULE, at->worker,
                    job->string);
    if (!L->fill) {
        rc = collect_key(m, &k);
    } else {
        double *cell = &trace_tp_alone_row(
            m, at->w, at->spread,
            (size_t)trace_tp_find_type(m, k.type,
                                       k.len))[trace_tp_find_sf(m, k.sf)];
        if (!isnan(*cell))
            return fail(L, "%s: key \"%s\": the entry appears twice",
                        at->worker, job->string);
        *cell = alone->valuedouble;
        at->cell = cell_of(m, &k);
    }
    for (const cJSON *x = job->child; x && !rc; x = x->next) {
        if (strcmp(x->string, "null") != 0)
            rc = walk_pair(L, x, at);
        else if (x != alone)
            rc = fail(L, "%s: key \"%s\": key \"null\" appears twice",
                      at->worker, job->string);
    }
    return rc;
}

/* Splits a worker key into its type and the spread flag. */
static int worker_of(struct loader *L, const cJSON *item, struct place *at)
{
    struct trace_throughputs *m = L->m;
    size_t len = strlen(item->string), suffix = strlen(TP_SPREAD_SUFFIX);
    long w;
    at->worker = item->string;
    at->spread = len >= suffix &&
                 strcmp(item->string + len - suffix, TP_SPREAD_SUFFIX) == 0;
    len -= at->spread ? suffix : 0;
    if (len == 0)
        return fail(L, "key \"%s\": no worker type", item->string);
    /* A worker's own name may not end in the suffix, or "X_unconsolidated"
     * would be both a worker and the spread table of worker X. */
    if (len >= suffix &&
        strncmp(item->string + len - suffix, TP_SPREAD_SUFFIX, suffix) == 0)
        return fail(L, "key \"%s\": a worker type may not end in \"%s\"",
                    item->string, TP_SPREAD_SUFFIX);
    for (const cJSON *x = item->prev; x && x->next; x = x->prev)
        if (strcasecmp(x->string, item->string) == 0)
            return fail(L, "key \"%s\" appears twice", item->string);
    if (!cJSON_IsObject(item))
        return fail(L, "%s must be an object of job types", item->string);
    w = trace_tp_find_worker(m, item->string, len);
    if (w < 0 && add_name(m, &m->workers, item->string, len))
        return TRACE_ENOMEM;
    at->w = w < 0 ? m->workers.n - 1 : (size_t)w;
    return 0;
}

static int walk(struct loader *L, const cJSON *root)
{
    if (!cJSON_IsObject(root))
        return fail(L, "the top level must be an object of worker types");
    if (!root->child)
        return fail(L, "no worker types");
    for (const cJSON *item = root->child; item; item = item->next) {
        struct place at = {NULL, NULL, 0, 0, 0};
        int rc = worker_of(L, item, &at);
        for (const cJSON *job = item->child; job && !rc; job = job->next)
            rc = walk_job(L, job, &at);
        if (rc)
            return rc;
    }
    return 0;
}

/* Sorts the pairs and rejects one written twice. */
static int settle_pairs(struct loader *L)
{
    struct trace_throughputs *m = L->m;
    uint64_t cells = (uint64_t)m->types.n * m->nsf;
    qsort(m->pairs, m->npairs, sizeof *m->pairs, trace_tp_compare_pairs);
    for (size_t i = 1; i < m->npairs; i++) {
        uint64_t key = m->pairs[i].key, a = key / cells % cells;
        uint64_t b = key % cells, t = key / cells / cells;
        if (key != m->pairs[i - 1].key)
            continue;
        return fail(L,
                    "%s%s: key \"('%s', %d)\": key \"('%s', %d)\" "
                    "appears twice",
                    trace_throughputs_worker(m, (size_t)t / 2),
                    t % 2 ? TP_SPREAD_SUFFIX : "",
                    trace_strpool_get(m->pool, m->types.str[a / m->nsf]),
                    m->sfs[a % m->nsf],
                    trace_strpool_get(m->pool, m->types.str[b / m->nsf]),
                    m->sfs[b % m->nsf]);
    }
    return 0;
}

/* The single-job table holds every (worker, spread, job type, GPU count):
 * 624 cells for Gavel's file. A file of a few MB can name thousands of job
 * types and GPU counts, whose product would ask for gigabytes: refuse it. */
static int check_size(struct loader *L)
{
    const struct trace_throughputs *m = L->m;
    size_t n = m->workers.n * 2;
    if (m->types.n && n > TP_MAX_CELLS / m->types.n)
        n = TP_MAX_CELLS + 1;
    else
        n *= m->types.n;
    if (m->nsf && n > TP_MAX_CELLS / m->nsf)
        return fail(L,
                    "%zu worker types x %zu job types x %zu GPU counts "
                    "are too many combinations (at most 2097152)",
                    m->workers.n, m->types.n, m->nsf);
    return 0;
}

/* ---- loading ----------------------------------------------------------- */

/* Reads the whole file into a NUL-terminated block (*text, owned). */
static int read_file(const char *path, char **text, size_t *len,
                     struct trace_error *e)
{
    FILE *f = fopen(path, "rb");
    size_t cap = TP_BLOCK, n = 0;
    char *buf = NULL, *bigger;
    int rc = 0;
    if (!f) {
        trace_error_set(e, path, 0, 0, "cannot open: %s", strerror(errno));
        return TRACE_EIO;
    }
    while ((bigger = realloc(buf, cap + 1)) != NULL) {
        buf = bigger;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > TP_MAX_FILE)
            break;
        cap = 2 * cap > TP_MAX_FILE ? TP_MAX_FILE + 1 : 2 * cap;
    }
    if (!bigger || ferror(f) || n > TP_MAX_FILE) {
        rc = !bigger ? TRACE_ENOMEM : ferror(f) ? TRACE_EIO : TRACE_EPARSE;
        trace_error_set(e, path, 0, 0, "%s",
                        !bigger     ? "out of memory"
                        : ferror(f) ? "read error"
                                    : "file is larger than 256 MiB");
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *text = buf;
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return rc;
}

/* Line and column (from 1) of byte OFF of TEXT into *e. */
static void locate(const char *text, size_t off, struct trace_error *e)
{
    e->line = 1;
    e->column = 1;
    for (size_t i = 0; i < off; i++) {
        e->column = text[i] == '\n' ? 1 : e->column + 1;
        e->line += text[i] == '\n';
    }
}

static cJSON *parse_json(const char *path, const char *text, size_t len,
                         struct trace_error *e)
{
    const char *nul = memchr(text, '\0', len), *end = NULL;
    cJSON *root = NULL;
    if (nul) {
        trace_error_set(e, path, 0, 0, "NUL byte in JSON text");
        locate(text, (size_t)(nul - text), e);
        return NULL;
    }
    root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        trace_error_set(e, path, 0, 0, "invalid JSON");
        locate(text, off > len ? len : off, e);
    }
    return root;
}

void trace_throughputs_destroy(struct trace_throughputs *m)
{
    if (!m)
        return;
    trace_strpool_destroy(m->pool);
    free(m->workers.str);
    free(m->workers.hash);
    free(m->types.str);
    free(m->types.hash);
    free(m->sfs);
    free(m->alone);
    free(m->pairs);
    free(m);
}

int trace_throughputs_load(const char *path, struct trace_throughputs **out,
                           struct trace_error *err)
{
    struct trace_error e;
    struct loader L = {NULL, path, &e, 0};
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL;
    int rc;
    memset(&e, 0, sizeof e);
    *out = NULL;
    if ((rc = read_file(path, &text, &len, &e)) != 0)
        goto done;
    root = parse_json(path, text, len, &e);
    free(text);
    rc = TRACE_EPARSE;
    if (!root)
        goto done;
    rc = TRACE_ENOMEM;
    if (!(L.m = calloc(1, sizeof *L.m)) ||
        !(L.m->pool = trace_strpool_create()))
        goto done;
    if ((rc = walk(&L, root)) != 0 || (rc = check_size(&L)) != 0 ||
        (rc = allocate_tables(L.m)) != 0)
        goto done;
    L.fill = 1;
    if ((rc = walk(&L, root)) == 0 && (rc = settle_pairs(&L)) == 0)
        trace_strpool_seal(L.m->pool);
done:
    cJSON_Delete(root);
    if (rc == TRACE_ENOMEM)
        trace_error_set(&e, path, 0, 0, "out of memory");
    if (rc)
        trace_throughputs_destroy(L.m);
    else
        *out = L.m;
    if (err)
        *err = e;
    return rc;
}
