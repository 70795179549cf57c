/* test_fuzz_replay.c -- the trace readers keep their invariants on every
 * input of the fuzz corpus: the seeds under tests/fuzz/corpus/<target>/
 * and every failing input ever found under tests/fuzz/crashes/<target>/.
 * Each input goes through the same target function as the libFuzzer
 * harness (tests/fuzz/fuzz_targets.h), which checks what the reader
 * returned (tests/fuzz/fuzz_trace_check.h). `make test` runs this also
 * under ASan + UBSan, so a crash found by fuzzing stays fixed. */
#include <criterion/criterion.h>

#include "../fuzz/fuzz_replay.h"
#include "../fuzz/fuzz_targets.h"

#ifndef HETSIM_SOURCE_DIR
#define HETSIM_SOURCE_DIR "."
#endif
#define FUZZ_DIR HETSIM_SOURCE_DIR "/tests/fuzz"

static void replay_input(void *ctx, const char *path, const uint8_t *data,
                         size_t size)
{
    enum fuzz_trace_target id = *(const enum fuzz_trace_target *)ctx;
    char why[FUZZ_WHY_SIZE] = "";
    cr_assert_not_null(data, "cannot read %s", path);
    cr_expect_eq(fuzz_trace_input(id, data, size, why), 0, "%s: %s", path, why);
}

/* Seeds must be there; a target may have no crashes (yet). */
static void replay(enum fuzz_trace_target id)
{
    char dir[4096];
    snprintf(dir, sizeof dir, FUZZ_DIR "/corpus/%s",
             fuzz_trace_targets[id].name);
    cr_expect_gt(fuzz_replay_dir(dir, replay_input, &id), 0, "no seeds in %s",
                 dir);
    snprintf(dir, sizeof dir, FUZZ_DIR "/crashes/%s",
             fuzz_trace_targets[id].name);
    fuzz_replay_dir(dir, replay_input, &id);
    fuzz_input_remove();
}

Test(fuzz_replay, native_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_NATIVE);
}

Test(fuzz_replay, gavel_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_GAVEL);
}

Test(fuzz_replay, philly_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_PHILLY);
}

Test(fuzz_replay, alibaba2023_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_ALIBABA2023);
}

Test(fuzz_replay, alibaba_node_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_ALIBABA_NODES);
}

Test(fuzz_replay, swf_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_SWF);
}

Test(fuzz_replay, tiresias_reader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_TIRESIAS);
}

Test(fuzz_replay, format_detection_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_DETECT);
}

Test(fuzz_replay, throughput_loader_keeps_its_contract_on_every_fuzz_input)
{
    replay(FUZZ_THROUGHPUTS);
}
