/* summary_read.c -- the figures of a summary.json that `hetsim run` wrote,
 * read back by `hetsim compare` and `hetsim sweep`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

#define SUMMARY_MAX_FILE (16u << 20)

int cli_read_summary(const char *dir, const char *const *keys, size_t n,
                     double null_value, double *v)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(SUMMARY_MAX_FILE + 1) : NULL;
    size_t len = text ? fread(text, 1, SUMMARY_MAX_FILE, f) : 0;
    if (f)
        fclose(f);
    if (!text) {
        cli_error("%s: cannot read: %s", path,
                  f ? "out of memory" : strerror(errno));
        return CLI_FAILURE;
    }
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    int rc = root ? CLI_OK : CLI_FAILURE;
    for (size_t i = 0; i < n && root; i++) {
        cJSON *item = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        v[i] = cJSON_IsNumber(item) ? item->valuedouble : null_value;
        if (!cJSON_IsNumber(item) && !cJSON_IsNull(item))
            rc = CLI_FAILURE;
    }
    if (rc)
        cli_error("%s: not a summary of `hetsim run`", path);
    cJSON_Delete(root);
    return rc;
}
