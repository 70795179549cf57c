/* sweep_json.c -- `hetsim sweep --json` (and reproduce's): the rows of a
 * CSV file hetsim wrote, as JSON on stdout, so that a pipeline reads the
 * figures without a CSV parser. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "sweep_internal.h"

#define JSON_MAX_COLS 256

/* FIELD as a number when the whole of it is one, null when empty, else
 * text. */
static void add_field(cJSON *o, const char *name, const char *field)
{
    char *end;
    double v = field[0] ? strtod(field, &end) : NAN;
    if (!field[0])
        cJSON_AddNullToObject(o, name);
    else if (!*end && isfinite(v))
        cli_json_number(o, name, v);
    else
        cJSON_AddStringToObject(o, name, field);
}

static cJSON *rows_of(char *text)
{
    static char *head[JSON_MAX_COLS], *row[JSON_MAX_COLS];
    char *p = text;
    int nh = cli_csv_record(&p, head, JSON_MAX_COLS);
    cJSON *rows = cJSON_CreateArray();
    while (rows && nh > 0 && *p) {
        int n = cli_csv_record(&p, row, JSON_MAX_COLS);
        if (n == 1 && !row[0][0])
            continue;
        cJSON *o = cJSON_CreateObject();
        if (n != nh || !o || !cJSON_AddItemToArray(rows, o)) {
            cJSON_Delete(o);
            cJSON_Delete(rows);
            return NULL;
        }
        for (int i = 0; i < n; i++)
            add_field(o, head[i], row[i]);
    }
    return rows;
}

cJSON *cli_csv_json_rows(const char *path)
{
    char *text = cli_read_text(path, 256u << 20);
    if (!text) {
        cli_error("%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    cJSON *rows = rows_of(text);
    free(text);
    if (!rows)
        cli_error("%s: cannot convert to JSON (out of memory, or a "
                  "malformed row)",
                  path);
    return rows;
}

int sweep_print_json(const struct sweep_spec *s, const char *out, size_t ncells)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    cJSON *rows = cli_csv_json_rows(path);
    cJSON *root = rows ? cJSON_CreateObject() : NULL;
    if (!root) {
        if (rows)
            cli_error("out of memory");
        cJSON_Delete(rows);
        return CLI_FAILURE;
    }
    cJSON_AddStringToObject(root, "out", out);
    cJSON_AddNumberToObject(root, "cells", (double)ncells);
    cJSON_AddNumberToObject(root, "seeds", (double)s->nseeds);
    cJSON_AddItemToObject(root, "rows", rows);
    if (cli_write_json(stdout, root) != 0) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    return CLI_OK;
}
