/* alibaba_nodes.c -- the node lists of Alibaba's GPU cluster trace 2023
 * (openb_node_list_gpu_node.csv, openb_node_list_all_node.csv):
 *
 *   sn,cpu_milli,memory_mib,gpu,model
 *
 * Columns by name, all five required. sn: the node's name, unique, at most
 * 47 bytes; cpu_milli: an integer >= 0; memory_mib: a number >= 0; gpu: the
 * node's GPU count, an integer >= 0; model: its GPU model (G1, G2, G3, T4,
 * P100, V100M16, V100M32, A10, ...), at most 31 bytes and required when gpu
 * > 0. A node without GPUs gets model "" whatever the cell says (the
 * all-node list leaves it empty; pandas shows it as "nan"). Every error is
 * fatal: a cluster with a node missing is another cluster. */
#include "traces_internal.h"

#include <stdlib.h>
#include <string.h>

enum { COL_SN, COL_CPU_MILLI, COL_MEMORY_MIB, COL_GPU, COL_MODEL, NCOLS };

static const char *const names[NCOLS] = {"sn", "cpu_milli", "memory_mib", "gpu",
                                         "model"};

struct reader {
    const char *path;
    struct trace_csv *csv;
    long field_of[NCOLS];
    size_t nfields;
    struct trace_nodes *nodes;
    size_t cap;
    long *lines;     /* (cap) line of each node, for duplicate errors */
    uint32_t *slots; /* (mask + 1) node index + 1 by name hash; 0: free */
    size_t mask;
};

static int cell_failed(const struct reader *r, const struct trace_csv_row *row,
                       int c, const char *rule, int status,
                       struct trace_error *e)
{
    const struct trace_csv_field *f = &row->fields[r->field_of[c]];
    return trace_cell_error(e, r->path, row->line, r->field_of[c] + 1, names[c],
                            rule, status, f->text, f->len);
}

/* Checks the cells of a row into *n. */
static int check_row(const struct reader *r, const struct trace_csv_row *row,
                     struct trace_node *n, struct trace_error *e)
{
    const struct trace_csv_field *f = &row->fields[r->field_of[COL_SN]];
    int64_t v;
    int rc;
    if (f->len == 0 || f->len >= sizeof n->name)
        return cell_failed(r, row, COL_SN, "at most 47 bytes",
                           f->len ? TRACE_NUM_BAD : TRACE_NUM_EMPTY, e);
    memcpy(n->name, f->text, f->len + 1);
    f = &row->fields[r->field_of[COL_CPU_MILLI]];
    if ((rc = trace_cell_int(f->text, f->len, 0, INT32_MAX, &v)))
        return cell_failed(r, row, COL_CPU_MILLI, "an integer >= 0", rc, e);
    n->cpu_milli = (int32_t)v;
    f = &row->fields[r->field_of[COL_MEMORY_MIB]];
    if ((rc = trace_cell_double(f->text, f->len, 0, &n->memory_mib)))
        return cell_failed(r, row, COL_MEMORY_MIB, "a number >= 0", rc, e);
    f = &row->fields[r->field_of[COL_GPU]];
    if ((rc = trace_cell_int(f->text, f->len, 0, INT32_MAX, &v)))
        return cell_failed(r, row, COL_GPU, "an integer >= 0", rc, e);
    n->gpus = (int32_t)v;
    f = &row->fields[r->field_of[COL_MODEL]];
    if (n->gpus == 0)
        return 0;
    if (f->len == 0 || f->len >= sizeof n->model)
        return cell_failed(r, row, COL_MODEL, "at most 31 bytes",
                           f->len ? TRACE_NUM_BAD : TRACE_NUM_EMPTY, e);
    memcpy(n->model, f->text, f->len + 1);
    return 0;
}

/* Index + 1 of the node named name, or 0; *slot: where it is or would go. */
static uint32_t find_name(const struct reader *r, const char *name,
                          size_t *slot)
{
    size_t i = trace_hash(name, strlen(name)) & r->mask;
    for (; r->slots[i]; i = (i + 1) & r->mask)
        if (strcmp(r->nodes->nodes[r->slots[i] - 1].name, name) == 0)
            break;
    *slot = i;
    return r->slots[i];
}

/* Makes room for one more node (array and name table at most half full). */
static int reserve(struct reader *r)
{
    struct trace_nodes *ns = r->nodes;
    if (ns->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        struct trace_node *nodes = realloc(ns->nodes, cap * sizeof *nodes);
        long *lines = nodes ? realloc(r->lines, cap * sizeof *lines) : NULL;
        if (nodes)
            ns->nodes = nodes;
        if (!lines)
            return TRACE_ENOMEM;
        r->lines = lines;
        r->cap = cap;
    }
    if (r->slots && 2 * (ns->n + 1) <= r->mask + 1)
        return 0;
    size_t mask = r->slots ? 2 * r->mask + 1 : 1023;
    free(r->slots);
    r->mask = mask;
    if (!(r->slots = calloc(mask + 1, sizeof *r->slots)))
        return TRACE_ENOMEM;
    for (size_t i = 0, slot; i < ns->n; i++) {
        find_name(r, ns->nodes[i].name, &slot);
        r->slots[slot] = (uint32_t)i + 1;
    }
    return 0;
}

/* Checks a row and appends its node. */
static int add_row(struct reader *r, const struct trace_csv_row *row,
                   struct trace_error *e)
{
    struct trace_node n;
    size_t slot;
    uint32_t first;
    int rc;
    memset(&n, 0, sizeof n);
    if ((rc = check_row(r, row, &n, e)) != 0)
        return rc;
    if (reserve(r) != 0) {
        trace_error_set(e, r->path, row->line, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    if ((first = find_name(r, n.name, &slot)) != 0) {
        trace_error_set(e, r->path, row->line, r->field_of[COL_SN] + 1,
                        "duplicate sn \"%s\" (first on line %ld)", n.name,
                        r->lines[first - 1]);
        return TRACE_EPARSE;
    }
    r->lines[r->nodes->n] = row->line;
    r->nodes->nodes[r->nodes->n++] = n;
    r->slots[slot] = (uint32_t)r->nodes->n;
    return 0;
}

static int read_rows(struct reader *r, struct trace_error *e)
{
    for (;;) {
        struct trace_csv_row row;
        int got = trace_csv_next(r->csv, &row, e), rc;
        if (got < 0)
            return got;
        if (got == TRACE_CSV_END)
            break;
        if ((rc = trace_csv_check_row(r->path, got, &row, r->nfields, e)) ||
            (rc = add_row(r, &row, e)))
            return rc;
    }
    if (r->nodes->n > 0)
        return 0;
    trace_error_set(e, r->path, 0, 0, "node list has no nodes");
    return TRACE_EPARSE;
}

int trace_read_alibaba_nodes(const char *path, struct trace_nodes **out,
                             struct trace_error *err)
{
    return trace_read_alibaba_nodes_flags(path, 0, out, err);
}

/* Reads the header, unknown columns going through a build of a trace that
 * holds only their warnings, copied into r->nodes. */
static int read_header(struct reader *r, int flags, struct trace_error *e)
{
    struct trace *t = calloc(1, sizeof *t);
    if (!t) {
        trace_error_set(e, r->path, 0, 0, "out of memory");
        return TRACE_ENOMEM;
    }
    struct trace_build b = {.path = r->path, .flags = flags, .trace = t};
    int rc = trace_csv_header(r->csv, r->path, names, NCOLS, NCOLS, r->field_of,
                              &r->nfields, &b, e);
    memcpy(r->nodes->warnings, t->warnings, sizeof t->warnings);
    r->nodes->nwarnings = t->nwarnings;
    free(t);
    return rc;
}

int trace_read_alibaba_nodes_flags(const char *path, int flags,
                                   struct trace_nodes **out,
                                   struct trace_error *err)
{
    struct reader r;
    struct trace_error e;
    int rc = TRACE_ENOMEM;
    memset(&r, 0, sizeof r);
    memset(&e, 0, sizeof e);
    *out = NULL;
    r.path = path;
    if (!(r.nodes = calloc(1, sizeof *r.nodes)))
        trace_error_set(&e, path, 0, 0, "out of memory");
    else if ((rc = trace_csv_open(path, &r.csv, &e)) == 0 &&
             (rc = read_header(&r, flags, &e)) == 0)
        rc = read_rows(&r, &e);
    if (rc == TRACE_EPARSE && e.line == 0) /* no header: an empty file */
        trace_error_set(&e, path, 0, 0, "node list has no nodes");
    trace_csv_close(r.csv);
    free(r.lines);
    free(r.slots);
    if (rc)
        trace_nodes_destroy(r.nodes);
    else
        *out = r.nodes;
    if (err)
        *err = e;
    return rc;
}

void trace_nodes_destroy(struct trace_nodes *n)
{
    if (!n)
        return;
    free(n->nodes);
    free(n);
}
