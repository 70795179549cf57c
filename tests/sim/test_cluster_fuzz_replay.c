/* test_cluster_fuzz_replay.c -- cluster_parse keeps its contract on every
 * input of the fuzz corpus (tests/fuzz/corpus/cluster/ and every failing
 * input ever found, tests/fuzz/crashes/cluster/), and sim_create builds an
 * engine on every cluster it accepts. Each input goes through the same
 * target function as the libFuzzer harness (tests/fuzz/fuzz_cluster.h).
 * `make test` runs this also under ASan + UBSan. */
#include <criterion/criterion.h>

#include "../fuzz/fuzz_cluster.h"
#include "../fuzz/fuzz_replay.h"

#ifndef HETSIM_SOURCE_DIR
#define HETSIM_SOURCE_DIR "."
#endif
#define FUZZ_DIR HETSIM_SOURCE_DIR "/tests/fuzz"

static void replay_input(void *ctx, const char *path, const uint8_t *data,
                         size_t size)
{
    char why[FUZZ_WHY_SIZE] = "";
    (void)ctx;
    cr_assert_not_null(data, "cannot read %s", path);
    cr_expect_eq(fuzz_cluster(data, size, why), 0, "%s: %s", path, why);
}

Test(fuzz_replay, cluster_parser_keeps_its_contract_on_every_fuzz_input)
{
    cr_expect_gt(
        fuzz_replay_dir(FUZZ_DIR "/corpus/cluster", replay_input, NULL), 0,
        "no seeds in " FUZZ_DIR "/corpus/cluster");
    fuzz_replay_dir(FUZZ_DIR "/crashes/cluster", replay_input, NULL);
}
