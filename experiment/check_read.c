/* check_read.c -- the figures of a result for `hetsim check`: the numbers
 * of a summary.json, or every statistic of every row of a sweep.csv. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_internal.h"
#include "cli.h"
#include "sweep_internal.h"

int check_fig_add(struct figures *f, const char *name, double v)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        char **nn = realloc(f->name, cap * sizeof *nn);
        if (nn)
            f->name = nn;
        double *nv = realloc(f->value, cap * sizeof *nv);
        if (nv)
            f->value = nv;
        if (!nn || !nv)
            return -1;
        f->cap = cap;
    }
    if (!(f->name[f->n] = strdup(name)))
        return -1;
    f->value[f->n++] = v;
    return 0;
}

void check_fig_free(struct figures *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->name[i]);
    free(f->name);
    free(f->value);
}

/* The column part of a figure's name (after the last ':'). */
static const char *column_of(const char *name)
{
    const char *c = strrchr(name, ':');
    return c ? c + 1 : name;
}

int check_wanted(const struct check_args *a, const char *name)
{
    if (!a->nkeys)
        return 1;
    for (size_t i = 0; i < a->nkeys; i++)
        if (strcmp(a->keys[i], column_of(name)) == 0)
            return 1;
    return 0;
}

int check_oom(void)
{
    cli_error("out of memory");
    return CLI_FAILURE;
}

/* ---- Reading a result --------------------------------------------------- */

/* Numbers of a summary.json: top-level keys, and KEY.SUB one level down
 * (utilization_by_type); null reads as NaN. */
static int read_summary_json(const char *path, const char *text,
                             const struct check_args *a, struct figures *f)
{
    cJSON *root = cJSON_Parse(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        cli_error("%s: not a JSON object (a summary.json of `hetsim run`)",
                  path);
        return CLI_BAD_INPUT;
    }
    int rc = CLI_OK;
    for (const cJSON *c = root->child; c && !rc; c = c->next) {
        const cJSON *sub = cJSON_IsObject(c) ? c->child : c;
        for (; sub && !rc; sub = cJSON_IsObject(c) ? sub->next : NULL) {
            char name[512];
            if (sub == c)
                snprintf(name, sizeof name, "%s", c->string);
            else
                snprintf(name, sizeof name, "%s.%s", c->string, sub->string);
            if (!check_wanted(a, name) ||
                !(cJSON_IsNumber(sub) || cJSON_IsNull(sub)))
                continue;
            if (check_fig_add(f, name, cJSON_IsNumber(sub) ? sub->valuedouble
                                                     : NAN))
                rc = check_oom();
        }
    }
    cJSON_Delete(root);
    return rc;
}

int cli_csv_record(char **p, char **fields, int cap)
{
    int n = 0;
    char *s = *p, *w;
    for (;;) {
        if (n == cap)
            return -1;
        fields[n++] = w = s;
        if (*s == '"') {
            for (s++;; s++) {
                if (!*s)
                    return -1;
                if (*s == '"' && s[1] == '"')
                    s++;
                else if (*s == '"') {
                    s++;
                    break;
                }
                *w++ = *s;
            }
        } else
            while (*s && *s != ',' && *s != '\n' && *s != '\r')
                *w++ = *s++;
        int more = *s == ',';
        if (*s == '\r')
            s++;
        if (*s)
            s++;
        *w = '\0';
        if (!more) {
            *p = s;
            return n;
        }
    }
}

#define CSV_MAX_COLS 256

/* Figures of a sweep.csv: the columns after "seeds", for each row named by
 * the columns before it. */
static int read_sweep_csv(const char *path, char *text,
                          const struct check_args *a, struct figures *f)
{
    static char *head[CSV_MAX_COLS], *row[CSV_MAX_COLS];
    char *p = text;
    int nh = cli_csv_record(&p, head, CSV_MAX_COLS), keys = 0;
    while (keys < nh && strcmp(head[keys], "seeds") != 0)
        keys++;
    if (nh < 2 || keys == nh) {
        cli_error("%s:1: not a sweep.csv (no \"seeds\" column)", path);
        return CLI_BAD_INPUT;
    }
    for (long line = 2; *p; line++) {
        int n = cli_csv_record(&p, row, CSV_MAX_COLS);
        if (n == 1 && !row[0][0])
            continue;
        if (n != nh) {
            char msg[96];
            snprintf(msg, sizeof msg, "%d fields where the header has %d", n,
                     nh);
            cli_error_at(path, line, 0, msg);
            return CLI_BAD_INPUT;
        }
        char key[2048] = "";
        for (int i = 0; i < keys; i++) {
            size_t len = strlen(key);
            snprintf(key + len, sizeof key - len, "%s%s", i ? "|" : "",
                     row[i]);
        }
        for (int i = keys + 1; i < nh; i++) {
            char name[2400], *end;
            snprintf(name, sizeof name, "%s:%s", key, head[i]);
            double v = row[i][0] ? strtod(row[i], &end) : NAN;
            if (row[i][0] && *end) {
                char msg[128];
                snprintf(msg, sizeof msg, "column %s: '%s' is not a number",
                         head[i], row[i]);
                cli_error_at(path, line, 0, msg);
                return CLI_BAD_INPUT;
            }
            if (check_wanted(a, name) && check_fig_add(f, name, v))
                return check_oom();
        }
    }
    return CLI_OK;
}

int check_read_result(const struct check_args *a, struct figures *f)
{
    char *text = cli_read_text(a->result, CHECK_MAX_FILE);
    if (!text) {
        cli_error("%s: %s", a->result, strerror(errno));
        return errno == ENOMEM ? CLI_FAILURE : CLI_BAD_INPUT;
    }
    size_t len = strlen(a->result);
    int csv = len > 4 && strcmp(a->result + len - 4, ".csv") == 0;
    int rc = csv ? read_sweep_csv(a->result, text, a, f)
                 : read_summary_json(a->result, text, a, f);
    free(text);
    if (!rc && f->n == 0) {
        cli_error("%s: no figures%s", a->result,
                  a->nkeys ? " of the --keys given" : "");
        rc = CLI_BAD_INPUT;
    }
    return rc;
}
