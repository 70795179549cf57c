/* est_predictor.c -- `--estimates predictor:MODEL.bin[,memory=MODEL2.bin]`:
 * a trained model of predictor/ asked on every arrival.
 *
 * A job's features that do not depend on the GPU type (its job type's
 * model facts, its GPU count) form the cache key; on a miss the model is
 * asked once per GPU type of the cluster, with that type's facts added,
 * and the answers are kept. Real traces repeat a few configurations
 * (Gavel's 2,000 jobs have 26 job types), so nearly every arrival is a
 * hit. A run-time model trained on throughput (steps/s) gives seconds per
 * step; the job's run time is its steps times that. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "estimators.h"

struct est_model {
    int unused;
};

int est_model_load(const char *path, struct est_model **out, char *why,
                   size_t cap)
{
    (void)path;
    *out = NULL;
    snprintf(why, cap, "this build has no trained-model support yet (the "
             "predictor library's pred_load is missing)");
    return -1;
}

void est_model_destroy(struct est_model *m)
{
    free(m);
}

int est_predictor_init(struct cli_estimator *e, const struct trace *t,
                       const struct cluster *c, const char *runtime_path,
                       const char *memory_path)
{
    memset(e, 0, sizeof *e);
    e->trace = t;
    e->cluster = c;
    char why[512];
    const char *paths[2] = {runtime_path, memory_path};
    struct est_model **models[2] = {&e->runtime, &e->memory};
    for (int i = 0; i < 2; i++) {
        if (paths[i] && est_model_load(paths[i], models[i], why,
                                       sizeof why) != 0) {
            cli_error("%s: %s", paths[i], why);
            return CLI_BAD_INPUT;
        }
    }
    return CLI_OK;
}
