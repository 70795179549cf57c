/* predictor_cmd.c -- `hetsim predictor train|eval|predict|compare`:
 * resource predictors trained on a CSV dataset, saved to model files,
 * evaluated and compared (README, "Predictor datasets, baselines and the
 * papers' comparison"). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cjson/cJSON.h>

#include "predictor_cmd.h"
#include "trace_cmd.h"

#define MODELS_HELP                                                            \
    "tbigru, transformer, bigru, hu2025, wang2025, seed000, seed002, "         \
    "xgboost, rf, tree, linear"

static const char OPTIONS_HELP[] =
    "\nOptions:\n"
    "  -d, --data F          CSV dataset with a header row (- reads stdin)\n"
    "  -t, --target COL      the column to predict\n"
    "      --categorical L   comma list of columns read as categories "
    "(columns with\n"
    "                        any non-numeric cell are categorical "
    "anyway)\n"
    "      --drop L          comma list of columns to ignore\n"
    "      --keep COL=VALUE  only the rows whose COL reads VALUE (e.g. "
    "runnable=1)\n"
    "  -m, --model NAME|F    train: the model (" MODELS_HELP ");\n"
    "                        eval, predict: the model file\n"
    "      --models LIST     compare: comma list of models (default "
    "all)\n"
    "      --arch NAME       tbigru's preset: tbigru (default), hu2025, "
    "wang2025,\n"
    "                        seed000, seed002 (docs/predictor.md, "
    "\"Presets\")\n"
    "      --order O         gru-first or attention-first\n"
    "Networks' training (docs/predictor.md; default: hetsim's recipe):\n"
    "      --recipe R        hetsim (steps, cosine, early stopping) or "
    "hu2025\n"
    "                        (Hu's Table 2: 200 epochs of 256, lr 0.01 "
    "then 0.001)\n"
    "      --steps N         optimizer steps (default 4000)\n"
    "      --epochs N        count in epochs instead of steps\n"
    "      --batch N         rows a step (default n/8 as a power of 2, "
    "16..256)\n"
    "      --lr X, --schedule cosine|step, --warmup N, --lr-min FRAC\n"
    "                        peak rate (0.003), schedule, warm-up steps "
    "(5 % of them),\n"
    "                        final rate as a fraction of lr (0.01)\n"
    "      --weight-decay X  AdamW decay of weight matrices only "
    "(0.01)\n"
    "      --l2 X            L2 on every parameter, Hu's (0)\n"
    "      --clip X          gradient norm cap (1; 0: none)\n"
    "      --dropout P       instead of the preset's\n"
    "      --linear-skip     add a linear model of the standardized "
    "numeric\n"
    "                        features to the network's output, trained "
    "with it\n"
    "                        (default: off; on for tbigru and its "
    "ablations in\n"
    "                        compare --leave-out)\n"
    "      --no-linear-skip  the network alone\n"
    "      --val-frac F      training rows held out for early stopping "
    "(0: none)\n"
    "      --patience N      epochs without improvement before stopping "
    "(0: never)\n"
    "      --ensemble K      compare: mean of K networks (seeds S, "
    "S+1000, ...)\n"
    "      --log-target      fit log(target); metrics stay in "
    "original units\n"
    "      --seed S          seed of splits and models (default 1)\n"
    "  -k, --repeats K       compare: seeded splits (default 5)\n"
    "      --leave-out COL   compare: hold out each value of COL in "
    "turn instead\n"
    "                        (e.g. model_family; pooled rows in "
    "splits.csv)\n"
    "      --max-depth N, --eta X, --rounds N, --trees N, --lambda X\n"
    "                        train: baseline hyper-parameters\n"
    "  -o, --out PATH        train: model file; predict: CSV; "
    "compare: folder\n"
    "      --no-plots        compare: no charts\n"
    "  -q, --quiet           no progress\n"
    "      --json            eval, compare: the metrics as JSON on stdout\n"
    "  -h, --help            show this help\n\n"
    "Examples:\n"
    "  hetsim dataset synth --schema memory -o mem.csv\n"
    "  hetsim predictor train --data mem.csv --target memory_mb "
    "--model xgboost -o mem.model\n"
    "  hetsim predictor eval --model mem.model --data mem.csv\n"
    "  hetsim predictor compare --data mem.csv --target memory_mb "
    "--repeats 5 --out cmp\n\n"
    "Exit codes: 0 ok, 1 failure, 2 usage error, 3 bad input "
    "(dataset, model file).\n";

static void usage(const char *sub)
{
    printf("Usage: hetsim predictor %s [OPTIONS]\n", sub);
    if (strcmp(sub, "train") == 0)
        printf("Trains one model on a CSV dataset and writes a model file."
               "\n  --data F --target COL --model NAME -o MODEL\n");
    else if (strcmp(sub, "eval") == 0)
        printf("Prints the metrics (MSE, RMSE, MAE, MAPE %%, R2) of a "
               "trained model on a CSV\ndataset with the target column.\n"
               "  --model MODEL --data F [--target COL]\n");
    else if (strcmp(sub, "predict") == 0)
        printf("Writes the model's features of each row of a CSV dataset, "
               "its target when\nthe file has that column, and one more "
               "column, `predicted`.\n"
               "  --model MODEL --data F -o OUT.csv\n");
    else
        printf("Trains every model on the same seeded 70/30 splits "
               "(hyper-parameters of the\nbaselines chosen on 20%% of the "
               "training split, never on the test rows) and\nwrites "
               "DIR/compare.csv, the table on stdout, and charts.\n"
               "  --data F --target COL --models LIST --repeats K "
               "--out DIR\n");
    fputs(OPTIONS_HELP, stdout);
}

static int number_opt(const char *sub, const char *name, const char *s,
                      double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "hetsim predictor %s", sub);
        return cli_usage_error(cmd, "%s: expected a number from %g to %g", name,
                               lo, hi);
    }
    *out = v;
    return 0;
}

int cli_pred_check_log_target(const struct pred_table *t, const char *path,
                              int log_target)
{
    for (size_t i = 0; log_target && i < t->n; i++)
        if (!(t->y[i] > 0)) {
            char text[160];
            snprintf(text, sizeof text,
                     "target '%s' is %g: --log-target needs every "
                     "target > 0",
                     t->target, t->y[i]);
            cli_error_at(path, t->line[i], 0, text);
            return CLI_BAD_INPUT;
        }
    return CLI_OK;
}

/* The baselines' hyper-parameters of `train` (bits of params_set). */
static int parse_hyper(struct pcli_args *a, const char *sub, int opt)
{
    double v = 0;
    int rc = 0;
    switch (opt) {
    case 'x':
        if (!(rc = number_opt(sub, "--max-depth", optarg, 1, 30, &v)))
            a->params.max_depth = (int)v, a->params_set |= 1;
        break;
    case 'e':
        if (!(rc = number_opt(sub, "--eta", optarg, 1e-6, 1, &v)))
            a->params.eta = v, a->params_set |= 2;
        break;
    case 'r':
        if (!(rc = number_opt(sub, "--rounds", optarg, 1, PMODEL_MAX_LOSS, &v)))
            a->params.rounds = (int)v, a->params_set |= 4;
        break;
    case 'T':
        if (!(rc = number_opt(sub, "--trees", optarg, 1, 10000, &v)))
            a->params.trees = (int)v, a->params_set |= 8;
        break;
    case 'y':
        if (!(rc = number_opt(sub, "--lambda", optarg, 0, 1e12, &v)))
            a->params.lambda = v, a->params_set |= 16;
        break;
    }
    return rc;
}

static int parse_option(struct pcli_args *a, const char *sub, int opt,
                        char **argv)
{
    int rc = 0;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "hetsim predictor %s", sub);
    switch (opt) {
    case 'd': a->data = optarg; break;
    case 't': a->target = optarg; break;
    case 'C': a->categorical = optarg; break;
    case 'D': a->drop = optarg; break;
    case 'm': a->model = optarg; break;
    case 'M': a->models = optarg; break;
    case 'A': a->arch = optarg; break;
    case 'o': a->out = optarg; break;
    case 'L': a->leave_out = optarg; break;
    case 'K': a->keep = optarg; break;
    case 'l': a->fit.log_target = 1; break;
    case 'q': a->quiet = 1; break;
    case 'J': a->json = 1; break;
    case 'P': a->plots = 0; break;
    case 'O':
        if (pred_order_parse(&a->fit.order, optarg) < 0)
            return cli_usage_error(cmd, "--order: expected gru-first or "
                                        "attention-first");
        a->fit.order_set = 1;
        break;
    case 'S':
        if (cli_parse_ulong(optarg, &a->fit.seed) || a->fit.seed > UINT32_MAX)
            return cli_usage_error(cmd, "--seed: expected a whole number");
        break;
    case 'k':
        if (cli_parse_ulong(optarg, &a->repeats) || a->repeats < 1 ||
            a->repeats > 1000)
            return cli_usage_error(cmd, "--repeats: expected 1 to 1000");
        break;
    case 'x':
    case 'e':
    case 'r':
    case 'T':
    case 'y': return parse_hyper(a, sub, opt);
    case 'h': usage(sub); return -1;
    case ':':
        return cli_usage_error(cmd, "option '%s' needs a value",
                               argv[optind - 1]);
    default:
        if ((rc = pmodel_nn_option(&a->fit.nn, cmd, opt, optarg)) != 1)
            return rc;
        return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
    }
    return rc;
}

/* An unknown option (with the nearest known one) or a missing value. */
static int option_error(const char *sub, int opt, char **argv,
                        const struct option *table)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "hetsim predictor %s", sub);
    return cli_option_error_in(cmd, opt, argv, table);
}

static int parse_args(int argc, char **argv, const char *sub,
                      struct pcli_args *a)
{
    static const struct option long_options[] = {
        {"data", required_argument, NULL, 'd'},
        {"target", required_argument, NULL, 't'},
        {"categorical", required_argument, NULL, 'C'},
        {"drop", required_argument, NULL, 'D'},
        {"model", required_argument, NULL, 'm'},
        {"models", required_argument, NULL, 'M'},
        {"arch", required_argument, NULL, 'A'},
        {"order", required_argument, NULL, 'O'},
        {"log-target", no_argument, NULL, 'l'},
        {"seed", required_argument, NULL, 'S'},
        {"repeats", required_argument, NULL, 'k'},
        {"leave-out", required_argument, NULL, 'L'},
        {"keep", required_argument, NULL, 'K'},
        {"max-depth", required_argument, NULL, 'x'},
        {"eta", required_argument, NULL, 'e'},
        {"rounds", required_argument, NULL, 'r'},
        {"trees", required_argument, NULL, 'T'},
        {"lambda", required_argument, NULL, 'y'},
        {"out", required_argument, NULL, 'o'},
        {"no-plots", no_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        PMODEL_NN_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->arch = "tbigru";
    a->repeats = 5;
    a->plots = 1;
    a->fit.seed = 1;
    pmodel_nn_defaults(&a->fit.nn);
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":d:t:m:o:k:qh", long_options,
                              NULL)) != -1)
        if ((rc = opt == '?' || opt == ':'
                      ? option_error(sub, opt, argv, long_options)
                      : parse_option(a, sub, opt, argv)) != 0)
            return rc;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "hetsim predictor %s", sub);
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!a->data)
        return cli_usage_error(cmd, "missing --data FILE");
    int needs_out = strcmp(sub, "eval") != 0;
    if (needs_out && !a->out)
        return cli_usage_error(cmd, "missing -o %s",
                               strcmp(sub, "compare") ? "FILE" : "DIR");
    if ((!strcmp(sub, "train") || !strcmp(sub, "compare")) && !a->target)
        return cli_usage_error(cmd, "missing --target COLUMN");
    if (strcmp(sub, "compare") && !a->model)
        return cli_usage_error(cmd, "missing --model %s",
                               strcmp(sub, "train") ? "FILE" : "NAME");
    return 0;
}

static int train(const struct pcli_args *a)
{
    struct pmodel_spec s;
    if (pmodel_parse(&s, a->model, a->arch) < 0)
        return cli_usage_error("hetsim predictor train",
                               "unknown model '%s' "
                               "(choose from: " MODELS_HELP ")",
                               a->model);
    if (!s.nn) {
        pred_base_defaults(s.kind, &s.params);
        const struct pred_base_params *p = &a->params;
        if (a->params_set & 1)
            s.params.max_depth = p->max_depth;
        if (a->params_set & 2)
            s.params.eta = p->eta;
        if (a->params_set & 4)
            s.params.rounds = p->rounds;
        if (a->params_set & 8)
            s.params.trees = p->trees;
        if (a->params_set & 16)
            s.params.lambda = p->lambda;
        s.params_set = 1;
    }
    struct pred_table_opts o = {.target = a->target,
                                .categorical = a->categorical,
                                .drop = a->drop,
                                .keep = a->keep};
    struct pred_table *t;
    struct pred_error e;
    if (pred_table_read(a->data, &o, &t, &e) < 0)
        return cli_pred_error(&e);
    if (cli_pred_check_log_target(t, a->data, a->fit.log_target) != CLI_OK) {
        pred_table_destroy(t);
        return CLI_BAD_INPUT;
    }
    struct pmodel m;
    char err[512];
    double t0 = cli_clock();
    int rc = pmodel_fit(&m, &s, &a->fit, &t->schema, t->x, t->y, t->n, err,
                        sizeof err);
    double fit_s = cli_clock() - t0;
    if (rc == 0)
        rc = pmodel_save(&m, a->target, a->out, err, sizeof err);
    if (rc < 0) {
        cli_error("%s", err);
        rc = CLI_FAILURE;
    } else if (!a->quiet) {
        fprintf(stderr, "hetsim predictor train: %s on %zu rows of %s (%d features) "
               "in %.2f s; model in %s\n",
               s.name, t->n, a->data, t->nfeat, fit_s, a->out);
    }
    pmodel_free(&m);
    pred_table_destroy(t);
    return rc;
}

/* Loads the model of A and the rows of A->data with its schema. */
static int load_for_use(const struct pcli_args *a, int need_target,
                        struct pmodel *m, struct pred_table **t)
{
    char err[512], *target = NULL;
    *t = NULL;
    if (pmodel_load(m, a->model, &target, err, sizeof err) < 0) {
        cli_error("%s", err);
        return CLI_BAD_INPUT;
    }
    const char *col = a->target ? a->target : target && *target ? target : NULL;
    if (need_target && !col) {
        free(target);
        return cli_usage_error("hetsim predictor eval",
                               "the model file "
                               "names no target: give --target COLUMN");
    }
    /* predict keeps the target beside the prediction when the file has
     * it. */
    struct pred_table_opts o = {.target = col,
                                .target_optional = !need_target,
                                .keep = a->keep,
                                .schema = pmodel_schema(m)};
    struct pred_error e;
    int rc =
        pred_table_read(a->data, &o, t, &e) < 0 ? cli_pred_error(&e) : CLI_OK;
    free(target);
    return rc;
}

/* eval --json: the metrics, unrounded, on stdout. */
static int print_metrics_json(const struct pred_metrics *mt)
{
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddNumberToObject(o, "rows", (double)mt->n);
        cli_json_number(o, "mse", mt->mse);
        cli_json_number(o, "rmse", mt->rmse);
        cli_json_number(o, "mae", mt->mae);
        cli_json_number(o, "mape_pct", mt->mape);
        cli_json_number(o, "r2", mt->r2);
    }
    if (cli_write_json(stdout, o) != 0) {
        cli_error("out of memory");
        return CLI_FAILURE;
    }
    return CLI_OK;
}

static int eval_or_predict(const struct pcli_args *a, int eval)
{
    struct pmodel m;
    struct pred_table *t;
    int rc = load_for_use(a, eval, &m, &t);
    double *yhat = t ? malloc(t->n * sizeof *yhat) : NULL;
    char err[512];
    if (rc == CLI_OK && !yhat) {
        cli_error("out of memory");
        rc = CLI_FAILURE;
    }
    if (rc == CLI_OK &&
        pmodel_predict(&m, t->x, t->n, yhat, err, sizeof err) < 0) {
        cli_error("%s", err);
        rc = CLI_FAILURE;
    }
    if (rc == CLI_OK && eval) {
        struct pred_metrics mt;
        pred_metrics_compute(t->y, yhat, t->n, &mt);
        if (a->json)
            rc = print_metrics_json(&mt);
        else
            printf("rows %zu\nmse %.6g\nrmse %.6g\nmae %.6g\nmape %.4g %%\n"
                   "r2 %.6f\n",
                   mt.n, mt.mse, mt.rmse, mt.mae, mt.mape, mt.r2);
    } else if (rc == CLI_OK) {
        struct trace_out o;
        if ((rc = cli_trace_out_open(&o, a->out)) == CLI_OK) {
            if (pred_table_write_csv(t, o.f, "predicted", yhat) < 0) {
                cli_error("%s: cannot write: %s", a->out, strerror(errno));
                cli_trace_out_abort(&o);
                rc = CLI_FAILURE;
            } else {
                rc = cli_trace_out_commit(&o);
            }
        }
    }
    free(yhat);
    pred_table_destroy(t);
    pmodel_free(&m);
    return rc;
}

int cli_predictor(int argc, char **argv)
{
    static const char *const subs[] = {"train", "eval", "predict", "compare"};
    const char *sub = argc > 1 ? argv[1] : NULL;
    if (!sub)
        return cli_usage_error("hetsim predictor", "missing command (train, "
                                                   "eval, predict or compare)");
    if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
        printf("Usage: hetsim predictor train|eval|predict|compare "
               "[OPTIONS]\n"
               "Resource predictors (the Transformer-BiGRU of Hu and Wang "
               "et al., and the\nbaselines of their tables) on CSV "
               "datasets (`hetsim dataset`).\n\n"
               "  train    fit one model, write a model file\n"
               "  eval     metrics of a model file on a dataset\n"
               "  predict  predictions of a model file for a dataset\n"
               "  compare  every model on the same seeded splits: table "
               "and charts\n\n"
               "`hetsim predictor COMMAND --help` lists the options.\n\n"
               "Example:\n"
               "  hetsim predictor train --data memory.csv --target memory_mb "
               "--model xgboost \\\n      -o mem.model\n");
        return CLI_OK;
    }
    int k = 0;
    while (k < 4 && strcmp(sub, subs[k]) != 0)
        k++;
    char hint[128];
    cli_did_you_mean(hint, sizeof hint, sub, subs, 4);
    if (k == 4)
        return cli_usage_error("hetsim predictor",
                               "unknown command '%s'%s "
                               "(choose from: train, eval, predict, "
                               "compare)",
                               sub, hint);
    struct pcli_args a;
    int rc = parse_args(argc - 1, argv + 1, sub, &a);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    char tmp[4096] = ""; /* --data -: standard input, copied once */
    if (strcmp(a.data, "-") == 0) {
        if (cli_spool_stdin(tmp, sizeof tmp) != 0)
            return CLI_FAILURE;
        a.data = tmp;
    }
    switch (k) {
    case 0: rc = train(&a); break;
    case 1: rc = eval_or_predict(&a, 1); break;
    case 2: rc = eval_or_predict(&a, 0); break;
    default: rc = cli_predictor_compare(&a); break;
    }
    if (tmp[0])
        unlink(tmp);
    return rc;
}
