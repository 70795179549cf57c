/* collect.c -- each run's figure, read back from the folder it wrote. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"

/* Field K (0-based) of the CSV line LINE (no quoted commas in these
 * files) as a number; NAN when absent or not a number. */
static double field_num(const char *line, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        line = strchr(line, ',');
        if (!line)
            return NAN;
        line++;
    }
    char *end;
    double v = strtod(line, &end);
    return end == line ? NAN : v;
}

/* Gavel's job id of a hetsim job id "<trace name>-<line>": line - 1. */
static long gavel_job_id(const char *line)
{
    const char *comma = strchr(line, ',');
    if (!comma)
        return -1;
    const char *dash = comma;
    while (dash > line && dash[-1] != '-')
        dash--;
    if (dash == line)
        return -1;
    return strtol(dash, NULL, 10) - 1;
}

/* Mean JCT (h) of the window jobs in DIR/jobs.csv that completed. */
static int window_jct(struct exp_cell *c, char *err, size_t errlen)
{
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/jobs.csv", c->out);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    double sum = 0;
    size_t n = 0, in_window = 0;
    while (fgets(line, sizeof line, f)) {
        long id = gavel_job_id(line);
        if (id < EXP_WINDOW_FIRST || id > EXP_WINDOW_LAST)
            continue;
        in_window++;
        double jct = field_num(line, 4);
        if (strstr(line, ",completed") && isfinite(jct)) {
            sum += jct;
            n++;
        }
    }
    fclose(f);
    if (n == 0) {
        snprintf(err, errlen,
                 "%s: no job of the window %d-%d completed (a trace of "
                 "at least %d jobs is needed)",
                 path, EXP_WINDOW_FIRST, EXP_WINDOW_LAST, EXP_WINDOW_LAST + 1);
        return -1;
    }
    c->dropped = in_window - n;
    c->value = sum / (double)n / 3600.0;
    return 0;
}

static int makespan(struct exp_cell *c, char *err, size_t errlen)
{
    char path[4200], buf[8192];
    snprintf(path, sizeof path, "%s/summary.json", c->out);
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[len] = '\0';
    const char *k = strstr(buf, "\"makespan_s\":");
    if (!k) {
        snprintf(err, errlen, "%s: no makespan_s", path);
        return -1;
    }
    c->value = strtod(k + strlen("\"makespan_s\":"), NULL) / 3600.0;
    return 0;
}

/* The allocation rate of placement POLICY when the arrived share is X:
 * after the last pod that keeps the arrived share <= X (0 before any),
 * as `hetsim pack` reads "allocation at 100%". */
static int allocation_at(struct exp_cell *c, const char *policy, double x,
                         char *err, size_t errlen)
{
    char path[4200], line[512];
    snprintf(path, sizeof path, "%s/pack.csv", c->out);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t plen = strlen(policy), rows = 0;
    double value = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, policy, plen) != 0 || line[plen] != ',')
            continue;
        rows++;
        if (field_num(line, 2) > x + 1e-12)
            break;
        value = field_num(line, 4);
    }
    fclose(f);
    if (rows == 0 || !isfinite(value)) {
        snprintf(err, errlen, "%s: no row of placement %s", path, policy);
        return -1;
    }
    c->value = value;
    return 0;
}

int exp_collect(struct exp_plan *p, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->ncells; i++) {
        struct exp_cell *c = &p->cells[i];
        int rc = 0;
        switch (exp_kind(p->cfg.info)) {
        case EXP_CONTINUOUS: rc = window_jct(c, err, errlen); break;
        case EXP_MAKESPAN: rc = makespan(c, err, errlen); break;
        case EXP_FGD:
            rc = allocation_at(c, p->cfg.policies[c->policy], p->cfg.xs[c->x],
                               err, errlen);
            break;
        }
        if (rc)
            return -1;
    }
    return 0;
}

static int by_policy_x(const struct exp_plan *p, size_t k, size_t x,
                       struct exp_row *r, double *vals)
{
    size_t n = 0, nrun = 0;
    double wall = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        const struct exp_cell *c = &p->cells[i];
        if (c->policy != k || c->x != x)
            continue;
        vals[n++] = c->value;
        if (!c->skip_run) {
            wall += c->wall_s;
            nrun++;
        }
    }
    r->policy = p->cfg.policies[k];
    r->x = p->cfg.xs[x];
    r->n = n;
    exp_mean_sd(vals, n, &r->mean, &r->sd);
    r->wall_s = nrun ? wall / (double)nrun : NAN;
    struct exp_reference ref = {NAN, NAN, NAN};
    if (exp_kind(p->cfg.info) == EXP_CONTINUOUS)
        exp_gavel_reference(exp_gavel_name(r->policy), r->x, &ref);
    r->published = ref.published_h;
    /* Gavel's simulator ran seed 0 only: beside a mean over other seeds it
     * would compare different things. */
    int seed0 = p->cfg.nseeds == 1 && p->cfg.seeds[0] == 0;
    r->gavel = seed0 ? ref.gavel_h : NAN;
    r->gavel_wall_s = seed0 ? ref.gavel_wall_s : NAN;
    return 0;
}

long exp_rows(const struct exp_plan *p, struct exp_row **out)
{
    size_t n = p->cfg.npolicies * p->cfg.nxs;
    struct exp_row *rows = calloc(n ? n : 1, sizeof *rows);
    double *vals = malloc((p->ncells ? p->ncells : 1) * sizeof *vals);
    if (!rows || !vals) {
        free(rows);
        free(vals);
        return -1;
    }
    size_t r = 0;
    for (size_t k = 0; k < p->cfg.npolicies; k++)
        for (size_t x = 0; x < p->cfg.nxs; x++)
            by_policy_x(p, k, x, &rows[r++], vals);
    free(vals);
    *out = rows;
    return (long)n;
}
