/* gavel_gen.c -- Gavel's synthetic job generator, draw for draw.
 *
 * Semantics of utils.generate_job and Scheduler.simulate() in Gavel
 * (github.com/stanford-futuredata/gavel, scheduler/, commit c4fa400; MIT),
 * re-implemented from their description, not copied:
 *  - a scale factor is drawn first, always (always_generate_scale_factor):
 *    r = uniform(0, 1); 2 GPUs if 0.7 <= r <= 0.8, 4 if 0.8 < r <= 0.95,
 *    8 if r > 0.95, else 1; without multi-GPU jobs it is then set to 1;
 *  - the duration: if random() >= 0.8, 60 x 10^uniform(3, 4) s, else
 *    60 x 10^uniform(1.5, 3) s (the Philly-like mix);
 *  - the job type: choice(JobTable), drawn again until a multi-GPU job
 *    gets a distributed template;
 *  - total_steps = int(duration x steps/s of (type, scale factor) on v100);
 *  - arrivals: the first at 0, each next one -ln(1 - U) x 3600 / rate
 *    later, U from the inter-arrival generator.
 * Both generators are CPython's random.Random (sim_pyrand_*). The fixtures
 * tests/data/gavel-reference/continuous_r*_s0.trace, written by Gavel's own
 * generate_job, are matched byte for byte. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "experiment.h"
#include "sim.h"

struct gavel_template {
    const char *model;
    const char *command; /* "%s" where the data folder goes, as Gavel has */
    const char *num_steps_arg;
    int needs_data_dir;
    int distributed;
};

#define R18 "python3 main.py --data_dir=%s/cifar10 --batch_size "
#define R50 "python3 main.py -j 8 -a resnet50 -b "
#define TRF                                                                    \
    "python3 train.py -data %s/translation/multi30k.atok.low.pt "              \
    "-batch_size "
#define LMC "python main.py --cuda --data %s/wikitext2 --batch_size "
#define REC "python3 train.py --data_dir %s/ml-20m/pro_sg/ --batch_size "

/* Gavel's JobTable, in its order (the order choice() draws from). */
static const struct gavel_template TEMPLATES[] = {
    {"ResNet-18 (batch size 16)", R18 "16", "--num_steps", 1, 1},
    {"ResNet-18 (batch size 32)", R18 "32", "--num_steps", 1, 1},
    {"ResNet-18 (batch size 64)", R18 "64", "--num_steps", 1, 1},
    {"ResNet-18 (batch size 128)", R18 "128", "--num_steps", 1, 1},
    {"ResNet-18 (batch size 256)", R18 "256", "--num_steps", 1, 1},
    {"ResNet-50 (batch size 16)", R50 "16 %s/imagenet/", "--num_minibatches", 1,
     1},
    {"ResNet-50 (batch size 32)", R50 "32 %s/imagenet/", "--num_minibatches", 1,
     1},
    {"ResNet-50 (batch size 64)", R50 "64 %s/imagenet/", "--num_minibatches", 1,
     1},
    {"ResNet-50 (batch size 128)", R50 "128 %s/imagenet/", "--num_minibatches",
     1, 1},
    {"Transformer (batch size 16)", TRF "16 -proj_share_weight", "-step", 1, 1},
    {"Transformer (batch size 32)", TRF "32 -proj_share_weight", "-step", 1, 1},
    {"Transformer (batch size 64)", TRF "64 -proj_share_weight", "-step", 1, 1},
    {"Transformer (batch size 128)", TRF "128 -proj_share_weight", "-step", 1,
     1},
    {"Transformer (batch size 256)", TRF "256 -proj_share_weight", "-step", 1,
     1},
    {"LM (batch size 5)", LMC "5", "--steps", 1, 1},
    {"LM (batch size 10)", LMC "10", "--steps", 1, 1},
    {"LM (batch size 20)", LMC "20", "--steps", 1, 1},
    {"LM (batch size 40)", LMC "40", "--steps", 1, 1},
    {"LM (batch size 80)", LMC "80", "--steps", 1, 1},
    {"Recommendation (batch size 512)", REC "512", "-n", 1, 0},
    {"Recommendation (batch size 1024)", REC "1024", "-n", 1, 0},
    {"Recommendation (batch size 2048)", REC "2048", "-n", 1, 0},
    {"Recommendation (batch size 4096)", REC "4096", "-n", 1, 0},
    {"Recommendation (batch size 8192)", REC "8192", "-n", 1, 0},
    {"A3C",
     "python3 main.py --env PongDeterministic-v4 --workers 4 "
     "--amsgrad True",
     "--max-steps", 0, 0},
    {"CycleGAN",
     "python3 cyclegan.py --dataset_path %s/monet2photo "
     "--decay_epoch 0",
     "--n_steps", 1, 0},
};
#define NTEMPLATES (sizeof TEMPLATES / sizeof TEMPLATES[0])

const char *exp_gavel_job_type(size_t i)
{
    return i < NTEMPLATES ? TEMPLATES[i].model : NULL;
}

/* random.uniform(a, b) */
static double uniform(struct sim_pyrand *r, double a, double b)
{
    return a + (b - a) * sim_pyrand_random(r);
}

static int32_t scale_factor(struct sim_pyrand *r)
{
    double u = uniform(r, 0, 1);
    if (u >= 0.7 && u <= 0.8)
        return 2;
    if (u >= 0.8 && u <= 0.95)
        return 4;
    if (u >= 0.95)
        return 8;
    return 1;
}

static double duration(struct sim_pyrand *r)
{
    if (sim_pyrand_random(r) >= 0.8)
        return 60 * pow(10, uniform(r, 3, 4));
    return 60 * pow(10, uniform(r, 1.5, 3));
}

static int draw_job(struct sim_pyrand *r, const struct trace_throughputs *m,
                    int multi_gpu, struct exp_gavel_job *j, char *err,
                    size_t errlen)
{
    int32_t sf = scale_factor(r);
    double run_time = duration(r);
    if (!multi_gpu)
        sf = 1;
    size_t t;
    do
        t = sim_pyrand_below(r, (uint32_t)NTEMPLATES);
    while (sf > 1 && !TEMPLATES[t].distributed);
    double thr = 0;
    if (trace_throughput(m, "v100", TEMPLATES[t].model, sf, 0, &thr) != 0 ||
        !(thr > 0)) {
        snprintf(err, errlen,
                 "the throughputs have no measured steps/s of ('%s', %d) on "
                 "v100, which Gavel's generator needs",
                 TEMPLATES[t].model, (int)sf);
        return -1;
    }
    j->template_index = (int32_t)t;
    j->scale_factor = sf;
    j->run_time_s = run_time;
    j->total_steps = (int64_t)(run_time * thr); /* Python's int(): toward 0 */
    return 0;
}

int exp_gavel_generate(const struct trace_throughputs *m,
                       const struct exp_gavel_gen *g, struct exp_gavel_job *out,
                       char *err, size_t errlen)
{
    struct sim_pyrand jobs, gaps;
    sim_pyrand_seed(&jobs, g->seed + 2);
    sim_pyrand_seed(&gaps, g->seed + 3);
    double lam = g->rate_per_h > 0 ? 3600.0 / g->rate_per_h : 0;
    double t = 0;
    for (size_t i = 0; i < g->njobs; i++) {
        if (draw_job(&jobs, m, g->multi_gpu, &out[i], err, errlen) != 0)
            return -1;
        out[i].arrival_s = t;
        /* Gavel draws no gap for lam == 0 (every job at once). */
        if (lam > 0)
            t = t + -log(1.0 - sim_pyrand_random(&gaps)) * lam;
    }
    return 0;
}

int exp_gavel_write(FILE *f, const struct exp_gavel_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct gavel_template *t = &TEMPLATES[jobs[i].template_index];
        if (fprintf(f, "%s\t%s\t%s\t%d\t%lld\t%f\t%d\n", t->model, t->command,
                    t->num_steps_arg, t->needs_data_dir,
                    (long long)jobs[i].total_steps, jobs[i].arrival_s,
                    (int)jobs[i].scale_factor) < 0)
            return -1;
    }
    return ferror(f) ? -1 : 0;
}
