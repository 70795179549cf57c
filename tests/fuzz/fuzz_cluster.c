/* fuzz_cluster.c -- libFuzzer harness of cluster_parse and sim_create (the
 * target is fuzz_cluster in fuzz_cluster.h, shared with the replay test). */
#include "fuzz_cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[FUZZ_WHY_SIZE];
    fuzz_harness_check(fuzz_cluster(data, size, why), why);
    return 0;
}
