/* test_model_facts.c -- the model facts of Gavel's job types: every job type
 * of the shipped trace is known, batch sizes come from the names, and the
 * parameter counts agree with counts worked out here from the published
 * architectures (an independent computation of the table's figures). */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "traces.h"

Test(model_facts, reads_family_and_batch_size_from_the_job_type)
{
    struct trace_model_facts f;
    cr_assert_eq(trace_model_facts("ResNet-50 (batch size 64)", &f), 0);
    cr_assert_str_eq(f.family, "ResNet-50");
    cr_assert_eq(f.batch_size, 64);
    cr_assert_eq(f.layers, 50);
    cr_assert_eq(trace_model_facts("LM (batch size 5)", &f), 0);
    cr_assert_eq(f.batch_size, 5);
    /* No batch size in the name: the family's own (A3C: 20 steps). */
    cr_assert_eq(trace_model_facts("A3C", &f), 0);
    cr_assert_eq(f.batch_size, 20);
    cr_assert_eq(trace_model_facts("CycleGAN", &f), 0);
    cr_assert_eq(f.batch_size, 1);
}

Test(model_facts, refuses_unknown_families_and_malformed_names)
{
    struct trace_model_facts f;
    cr_assert_eq(trace_model_facts("GPT-3 (batch size 8)", &f), -1);
    cr_assert_eq(trace_model_facts("ResNet-5", &f), -1);
    cr_assert_eq(trace_model_facts("ResNet-50", &f), -1, "needs a batch");
    cr_assert_eq(trace_model_facts("LM (batch size x)", &f), -1);
    cr_assert_eq(trace_model_facts("LM (batch size 0)", &f), -1);
    cr_assert_eq(trace_model_facts("LM (batch size 8", &f), -1);
}

Test(model_facts, knows_every_job_type_of_the_shipped_trace)
{
    struct trace *t = NULL;
    struct trace_error err = {0};
    cr_assert_eq(trace_read(HETSIM_SOURCE_DIR
                            "/traces/gavel/msr/seed=0/6214e9.trace",
                            TRACE_FMT_AUTO, NULL, &t, &err), 0, "%s",
                 err.text);
    struct trace_model_facts f;
    for (size_t i = 0; i < t->njobs; i++) {
        const char *jt = trace_str(t, t->jobs[i].job_type);
        cr_assert_eq(trace_model_facts(jt, &f), 0, "%s", jt);
        cr_assert(f.params_m > 0 && f.layers > 0 && f.batch_size > 0);
    }
    trace_destroy(t);
}

static double params_m(const char *job_type)
{
    struct trace_model_facts f;
    cr_assert_eq(trace_model_facts(job_type, &f), 0);
    return f.params_m;
}

Test(model_facts, parameter_counts_agree_with_the_architectures)
{
    /* LM: PyTorch's word_language_model on Wikitext-2 (33,278 words),
     * embedding 200, 2 LSTM layers of 200, linear decoder:
     * 33278*200 + 2 * 4*(200*200 + 200*200 + 2*200) + 200*33278 + 33278
     * = 6,655,600 + 643,200 + 6,688,878 = 13,987,678. */
    double lm = 33278.0 * 200 + 2 * 4 * (200.0 * 200 + 200 * 200 + 400) +
                200.0 * 33278 + 33278;
    cr_assert_float_eq(params_m("LM (batch size 20)"), lm / 1e6, 0.05);
    /* Recommendation: Recoder's DynamicAutoencoder as Gavel's
     * workloads/pytorch/recommendation/train.py builds it (hidden_layers
     * [200], untied), over the 20,108 items that Gavel's ml-20m
     * preprocess.py (VAE-CF's, Liang et al. WWW'18, Table 1) keeps:
     * encoder embedding 20108*200 + bias 200, decoder embedding 20108*200
     * + bias 20108 = 4,021,600 + 200 + 4,021,600 + 20,108 = 8,063,508. */
    double rec = 20108.0 * 200 + 200 + 20108.0 * 200 + 20108;
    cr_assert_float_eq(params_m("Recommendation (batch size 512)"),
                       rec / 1e6, 0.005);
    /* A3C: A3Clstm of rl_a3c_pytorch, which Gavel's workloads/pytorch/rl
     * runs on PongDeterministic-v4 (6 actions): convolutions 1->32 5x5,
     * 32->32 5x5, 32->64 4x4, 64->64 3x3, LSTM cell 1024 -> 512, critic
     * 512 -> 1, actor 512 -> 6:
     * 832 + 25,632 + 32,832 + 36,928 + 4*512*(1024+512) + 2*4*512 + 513
     * + 3,078 = 3,249,639. */
    double a3c = (32 * 25 + 32) + (32 * 32 * 25 + 32) + (64 * 32 * 16 + 64) +
                 (64 * 64 * 9 + 64) + 4 * 512.0 * (1024 + 512) + 2 * 4 * 512 +
                 (512 + 1) + (512 * 6 + 6);
    cr_assert_float_eq(params_m("A3C"), a3c / 1e6, 0.005);
}

Test(model_facts, knows_gavels_gpu_types_in_any_case)
{
    /* NVIDIA data sheets: Tesla V100 SXM2 16 GB, 900 GB/s; a K80 board's
     * 8.73 TFLOP/s (boost) is two dies of 4.37. */
    const struct trace_gpu_facts *g = trace_gpu_facts("V100");
    cr_assert(g && strcmp(g->name, "v100") == 0);
    cr_assert_float_eq(g->memory_gb, 16, 1e-9);
    cr_assert_float_eq(g->bandwidth_gbs, 900, 1e-9);
    g = trace_gpu_facts("k80");
    cr_assert(g);
    cr_assert_float_eq(g->tflops_fp32, 8.73 / 2, 0.01);
    cr_assert_null(trace_gpu_facts("a100"));
}
