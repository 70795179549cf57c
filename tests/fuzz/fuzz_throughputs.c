/* fuzz_throughputs.c -- libFuzzer harness of trace_throughputs_load; the target
 * is fuzz_throughputs in fuzz_targets.h, shared with the replay test. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[FUZZ_WHY_SIZE];
    fuzz_harness_check(fuzz_trace_input(FUZZ_THROUGHPUTS, data, size, why),
                       why);
    return 0;
}
