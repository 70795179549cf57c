/* fuzz_philly.c -- libFuzzer harness of trace_read_philly (the target
 * is fuzz_philly in fuzz_targets.h, shared with the replay test). */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[FUZZ_WHY_SIZE];
    fuzz_harness_check(fuzz_trace_input(FUZZ_PHILLY, data, size, why), why);
    return 0;
}
