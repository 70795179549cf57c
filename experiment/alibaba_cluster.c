/* alibaba_cluster.c -- `--cluster alibaba2023:NODES.csv[:TYPES.json]`: a
 * cluster from the node list of Alibaba's GPU cluster trace 2023.
 *
 * The node list names GPU models but says nothing of their speed, and three
 * models (G1, G2, G3) are anonymised. The table below holds documented
 * guesses (README, "Alibaba GPU cluster trace 2023"); TYPES.json, a JSON
 * array of gpu_types entries in the cluster format, replaces them model by
 * model. */
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

struct model_guess {
    const char *name;
    double memory_mb, speed; /* speed relative to V100M16 */
};

/* Memory: NVIDIA data sheets (T4 16 GB, P100 16 GB, V100 16/32 GB, A10
 * 24 GB). Speed: P100 from Gavel's measurements (0.943 of V100); T4 and A10
 * by FP32 peak against V100's 15.7 TFLOPS, T4 (8.1) halved to 0.5, A10
 * (31.2, but a third less memory bandwidth) held at 1.0; the anonymised
 * G1-G3 are taken as V100-class with 16 GB. All replaceable. */
static const struct model_guess guesses[] = {
    {"V100M16", 16384, 1.0}, {"V100M32", 32768, 1.0}, {"P100", 16384, 0.943},
    {"T4", 16384, 0.5},      {"A10", 24576, 1.0},     {"G1", 16384, 1.0},
    {"G2", 16384, 1.0},      {"G3", 16384, 1.0},
};

/* The gpu_types entry of MODEL: from OVERRIDE (an array) if it is there,
 * else from the guesses; NULL when neither knows it. */
static cJSON *type_entry(const char *model, const cJSON *override)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, override) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, model) == 0)
            return cJSON_Duplicate(o, 1);
    }
    for (size_t i = 0; i < sizeof guesses / sizeof guesses[0]; i++) {
        if (strcmp(guesses[i].name, model) != 0)
            continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", model);
        cJSON_AddNumberToObject(e, "memory_mb", guesses[i].memory_mb);
        cJSON_AddNumberToObject(e, "speed", guesses[i].speed);
        return e;
    }
    return NULL;
}

static int has_type(const cJSON *types, const char *model)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, types) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "name");
        if (strcmp(n->valuestring, model) == 0)
            return 1;
    }
    return 0;
}

/* Builds the cluster JSON of NODES; NULL after a message. */
static cJSON *cluster_json(const struct trace_nodes *nodes,
                           const cJSON *override, const char *src)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "name", "alibaba2023");
    cJSON *types = cJSON_AddArrayToObject(root, "gpu_types");
    cJSON *groups = cJSON_AddArrayToObject(root, "nodes");
    cJSON *last = NULL;
    for (size_t i = 0; i < nodes->n; i++) {
        const struct trace_node *nd = &nodes->nodes[i];
        if (nd->gpus < 1 || !nd->model[0])
            continue; /* a node without GPUs runs no job of ours */
        if (!has_type(types, nd->model)) {
            cJSON *e = type_entry(nd->model, override);
            if (!e) {
                cli_error("%s: GPU model \"%s\" has no memory and speed: "
                          "give them in TYPES.json "
                          "(alibaba2023:NODES.csv:TYPES.json)", src,
                          nd->model);
                cJSON_Delete(root);
                return NULL;
            }
            cJSON_AddItemToArray(types, e);
        }
        const cJSON *cnt = last ? cJSON_GetObjectItem(last, "count") : NULL;
        if (last && strcmp(cJSON_GetObjectItem(last, "gpu_type")->valuestring,
                           nd->model) == 0 &&
            cJSON_GetObjectItem(last, "gpus_per_node")->valueint == nd->gpus) {
            cJSON_SetNumberValue((cJSON *)cnt, cnt->valuedouble + 1);
            continue;
        }
        last = cJSON_CreateObject();
        cJSON_AddStringToObject(last, "gpu_type", nd->model);
        cJSON_AddNumberToObject(last, "gpus_per_node", nd->gpus);
        cJSON_AddNumberToObject(last, "count", 1);
        cJSON_AddItemToArray(groups, last);
    }
    if (has_type(types, "V100M16"))
        cJSON_AddStringToObject(root, "reference_gpu", "V100M16");
    return root;
}

static cJSON *read_override(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("%s: cannot open", path);
        return NULL;
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *o = cJSON_Parse(text);
    if (!cJSON_IsArray(o)) {
        cli_error("%s: must be a JSON array of gpu_types entries "
                  "(docs/formats.md)", path);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int cli_alibaba_cluster(const char *spec, int flags, struct cluster **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", spec);
    char *types_path = strchr(path, ':');
    if (types_path)
        *types_path++ = '\0';
    cJSON *override = NULL;
    if (types_path && !(override = read_override(types_path)))
        return CLI_BAD_INPUT;
    struct trace_nodes *nodes = NULL;
    struct trace_error err = {0};
    int rc = trace_read_alibaba_nodes_flags(path, flags, &nodes, &err);
    if (rc) {
        cli_error_at(err.source[0] ? err.source : path, err.line, err.column,
                     err.text[0] ? err.text : trace_strerror(rc));
        cJSON_Delete(override);
        return rc == TRACE_ENOMEM ? CLI_FAILURE : CLI_BAD_INPUT;
    }
    for (size_t i = 0; i < nodes->nwarnings && i < TRACE_MAX_WARNINGS; i++) {
        const struct trace_error *w = &nodes->warnings[i];
        cli_warn("%s:%ld:%ld: %s", w->source, w->line, w->column, w->text);
    }
    cJSON *root = cluster_json(nodes, override, path);
    trace_nodes_destroy(nodes);
    cJSON_Delete(override);
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return CLI_BAD_INPUT;
    struct sim_error serr = {0};
    rc = cluster_parse(text, path, out, &serr);
    cJSON_free(text);
    if (rc == 0)
        return CLI_OK;
    cli_error_at(path, 0, 0, serr.text);
    return rc == SIM_ENOMEM ? CLI_FAILURE : CLI_BAD_INPUT;
}
