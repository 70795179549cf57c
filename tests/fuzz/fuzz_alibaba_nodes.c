/* fuzz_alibaba_nodes.c -- libFuzzer harness of trace_read_alibaba_nodes;
 * the target is fuzz_alibaba_nodes in fuzz_targets.h, shared with the
 * replay test. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[FUZZ_WHY_SIZE];
    fuzz_harness_check(fuzz_trace_input(FUZZ_ALIBABA_NODES, data, size, why),
                       why);
    return 0;
}
