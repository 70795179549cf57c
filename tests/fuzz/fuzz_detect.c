/* fuzz_detect.c -- libFuzzer harness of trace_read with TRACE_FMT_AUTO; the
 * target is fuzz_detect in fuzz_targets.h, shared with the replay test. */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[FUZZ_WHY_SIZE];
    fuzz_harness_check(fuzz_trace_input(FUZZ_DETECT, data, size, why), why);
    return 0;
}
