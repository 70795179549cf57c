/* bench_predictor.c -- speed of the predictor (float build): training
 * tbigru with hetsim's recipe (docs/predictor.md) on 200, 2,000 and
 * 20,000 rows of Hu's columns, seed000 on 517 rows for 200 epochs (Hu's
 * Table 2), inference at batch 1 and batched, and seed002's time per
 * epoch on 452 rows of Wang's columns. The rows are random (only the
 * speed is measured). Times are CPU seconds. Usage:
 * bench_predictor [epochs_seed002 [epochs_seed000 [max_recipe_rows]]] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "predictor.h"

/* CPU time of this process: the figures stay meaningful on a machine
 * shared with other work (run with OPENBLAS_NUM_THREADS=1, so it is the
 * time of one core). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const fam[] = {"cnn", "rnn", "transformer", "mlp"};
static const char *const prec[] = {"fp32", "fp16", "bf16"};
static const char *const opt[] = {"sgd", "adam", "adamw"};

/* Hu's columns: model_type, params_m, batch_size, input_dim, num_layers,
 * iterations, precision, optimizer, learning_rate. */
static const struct pred_feature hu[] = {
    {"model_type", 4, fam},    {"params_m", 0, NULL},
    {"batch_size", 0, NULL},   {"input_dim", 0, NULL},
    {"num_layers", 0, NULL},   {"iterations", 0, NULL},
    {"precision", 3, prec},    {"optimizer", 3, opt},
    {"learning_rate", 0, NULL}};
/* Wang's: input_dim, model_arch, num_layers, num_params, precision,
 * params_per_layer. */
static const struct pred_feature wang[] = {
    {"input_dim", 0, NULL},  {"model_arch", 4, fam},
    {"num_layers", 0, NULL}, {"num_params", 0, NULL},
    {"precision", 3, prec},  {"params_per_layer", 0, NULL}};

static void rows(double *x, double *y, const struct pred_feature *f, int nf,
                 int n)
{
    srand(1);
    for (int r = 0; r < n; r++) {
        double s = 0;
        for (int i = 0; i < nf; i++) {
            x[r * nf + i] = f[i].nlevels ? rand() % f[i].nlevels
                                         : rand() / (double)RAND_MAX * 100;
            s += x[r * nf + i];
        }
        y[r] = 1 + s;
    }
}

static struct pred_model *model(const char *preset,
                                const struct pred_feature *f, int nf)
{
    struct pred_arch a;
    pred_arch_preset(&a, preset);
    struct pred_schema s = {nf, f};
    char err[200];
    struct pred_model *m = pred_create(&a, &s, 1, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bench_predictor: %s\n", err);
        exit(1);
    }
    return m;
}

/* tbigru with the recipe on N random rows of Hu's columns. */
static int recipe_time(size_t n)
{
    double *x = malloc(n * 9 * sizeof *x), *y = malloc(n * sizeof *y);
    char err[200];
    if (!x || !y)
        return 1;
    rows(x, y, hu, 9, (int)n);
    struct pred_model *m = model("tbigru", hu, 9);
    struct pred_train_opts o;
    pred_train_recipe(&o, n);
    double t0 = now();
    int rc = pred_fit(m, x, y, n, &o, err, sizeof err);
    double t1 = now();
    if (rc == 0)
        printf("   tbigru recipe: train %5zu rows, %d steps of %3d "
               "(best step %4d)  %8.3f s\n",
               n, o.steps, o.batch, pred_model_record(m)->best_step, t1 - t0);
    else
        fprintf(stderr, "bench_predictor: %s\n", err);
    pred_destroy(m);
    free(x);
    free(y);
    return rc != 0;
}

int main(int argc, char **argv)
{
    int e2 = argc > 1 ? atoi(argv[1]) : 2;
    int e0 = argc > 2 ? atoi(argv[2]) : 200;
    size_t nmax = argc > 3 ? (size_t)atol(argv[3]) : 20000;
    static double x[517 * 9], y[517], p[517];
    char err[200];
    for (size_t n = 200; n <= nmax; n *= 10)
        if (recipe_time(n))
            return 1;
    rows(x, y, hu, 9, 517);
    struct pred_model *m = model("seed000", hu, 9);
    struct pred_train_opts o;
    pred_train_defaults(&o);
    o.epochs = e0;
    double t0 = now();
    if (pred_fit(m, x, y, 517, &o, err, sizeof err) < 0)
        return fprintf(stderr, "bench_predictor: %s\n", err), 1;
    double t1 = now();
    printf("   seed000 (%zu parameters): train 517 rows x %d epochs, "
           "batch 256 (Hu)  %8.3f s\n",
           pred_param_count(m), e0, t1 - t0);
    int reps = 20000;
    t0 = now();
    for (int i = 0; i < reps; i++)
        pred_predict(m, x + (i % 517) * 9, 1, p, NULL, 0);
    t1 = now();
    printf("   seed000 inference, batch 1                         %8.2f "
           "us/row\n",
           (t1 - t0) / reps * 1e6);
    t0 = now();
    for (int i = 0; i < 40; i++)
        pred_predict(m, x, 517, p, NULL, 0);
    t1 = now();
    printf("   seed000 inference, 517 rows in one call           %8.2f "
           "us/row\n",
           (t1 - t0) / (40 * 517) * 1e6);
    pred_destroy(m);

    if (e2 < 1)
        return 0;
    rows(x, y, wang, 6, 452);
    m = model("seed002", wang, 6);
    o.epochs = e2;
    t0 = now();
    if (pred_fit(m, x, y, 452, &o, err, sizeof err) < 0)
        return fprintf(stderr, "bench_predictor: %s\n", err), 1;
    t1 = now();
    printf("   seed002 (%zu parameters): 452 rows, batch 256      %8.3f "
           "s/epoch (mean of %d)\n",
           pred_param_count(m), (t1 - t0) / e2, e2);
    pred_destroy(m);
    return 0;
}
