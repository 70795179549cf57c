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
    /* Recommendation: VAE-CF (Liang et al., WWW'18) on ML-20M's 20,108
     * items, 20108-600-(2x200) encoder, 200-600-20108 decoder:
     * 20108*600+600 + 600*400+400 + 200*600+600 + 600*20108+20108
     * = 12,065,400 + 240,400 + 120,600 + 12,084,908 = 24,511,308. */
    double rec = 20108.0 * 600 + 600 + 600.0 * 400 + 400 + 200.0 * 600 +
                 600 + 600.0 * 20108 + 20108;
    cr_assert_float_eq(params_m("Recommendation (batch size 512)"),
                       rec / 1e6, 0.05);
    /* A3C (pytorch-a3c): 4 convolutions of 32 3x3 filters on one input
     * plane, LSTM cell 288 -> 256, critic 256 -> 1, actor 256 -> 6:
     * 320 + 3*9248 + 4*256*(288 + 256) + 8*256 + 257 + 1542 = 588,911. */
    double a3c = 320 + 3 * 9248.0 + 4 * 256.0 * (288 + 256) + 8 * 256.0 +
                 257 + 1542;
    cr_assert_float_eq(params_m("A3C"), a3c / 1e6, 0.005);
}
