/* presets.c -- built-in clusters, written in the same JSON a user would write
 * and read by the same parser, so a preset can never bypass a check.
 *
 * Where the figures come from (README, "Clusters"):
 * - gavel-108: the 108-GPU cluster of Gavel's simulations (Narayanan et al.,
 *   OSDI'20): 36 each of K80, P100, V100 in 4-GPU servers. Speeds are the
 *   geometric mean, over Gavel's 26 job types at one GPU, of the measured
 *   throughput on that type divided by the throughput on V100
 *   (simulation_throughputs.json at Gavel commit c4fa400): K80 0.297,
 *   P100 0.943. Memory and peak figures are NVIDIA's data-sheet values per
 *   GPU (a K80 board holds two GPUs of 12 GB each).
 * - philly-like: a homogeneous stand-in for Microsoft's Philly cluster,
 *   64 servers of 8 GPUs of one type; not Philly's real size.
 * - mixed-modern: V100, A100 and H100 servers of 8 GPUs with the data-sheet
 *   memory sizes; speeds 1 : 2 : 4 are round figures between published
 *   end-to-end training speed-ups and peak-FLOP ratios, to be replaced by
 *   measurements where a user has them. */
#include <string.h>

#include "sim_internal.h"

struct preset {
    const char *name;
    const char *description;
    const char *json;
};

static const struct preset presets[] = {
    {"gavel-108",
     "36 K80 + 36 P100 + 36 V100 in 4-GPU servers, speeds from Gavel's "
     "measured throughputs",
     "{\"name\": \"gavel-108\", \"reference_gpu\": \"V100\","
     " \"gpu_types\": ["
     "  {\"name\": \"V100\", \"memory_mb\": 16384, \"speed\": 1.0,"
     "   \"tflops_fp32\": 15.7, \"tflops_fp16\": 125, \"mem_bw_gbs\": 900},"
     "  {\"name\": \"P100\", \"memory_mb\": 16384, \"speed\": 0.943,"
     "   \"tflops_fp32\": 10.6, \"tflops_fp16\": 21.2, \"mem_bw_gbs\": 732},"
     "  {\"name\": \"K80\", \"memory_mb\": 12288, \"speed\": 0.297,"
     "   \"tflops_fp32\": 4.37, \"mem_bw_gbs\": 240}],"
     " \"nodes\": ["
     "  {\"gpu_type\": \"V100\", \"gpus_per_node\": 4, \"count\": 9},"
     "  {\"gpu_type\": \"P100\", \"gpus_per_node\": 4, \"count\": 9},"
     "  {\"gpu_type\": \"K80\", \"gpus_per_node\": 4, \"count\": 9}]}"},
    {"philly-like",
     "homogeneous: 64 servers of 8 P100 GPUs (512 GPUs)",
     "{\"name\": \"philly-like\","
     " \"gpu_types\": [{\"name\": \"P100\", \"memory_mb\": 16384,"
     "   \"speed\": 1.0, \"tflops_fp32\": 10.6, \"tflops_fp16\": 21.2,"
     "   \"mem_bw_gbs\": 732}],"
     " \"nodes\": [{\"gpu_type\": \"P100\", \"gpus_per_node\": 8,"
     "   \"count\": 64}]}"},
    {"mixed-modern",
     "64 V100 + 48 A100 + 32 H100 in 8-GPU servers, speeds 1 : 2 : 4",
     "{\"name\": \"mixed-modern\", \"reference_gpu\": \"V100\","
     " \"gpu_types\": ["
     "  {\"name\": \"V100\", \"memory_mb\": 32768, \"speed\": 1.0,"
     "   \"tflops_fp32\": 15.7, \"tflops_fp16\": 125, \"mem_bw_gbs\": 900},"
     "  {\"name\": \"A100\", \"memory_mb\": 81920, \"speed\": 2.0,"
     "   \"tflops_fp32\": 19.5, \"tflops_fp16\": 312, \"mem_bw_gbs\": 2039},"
     "  {\"name\": \"H100\", \"memory_mb\": 81920, \"speed\": 4.0,"
     "   \"tflops_fp32\": 67, \"tflops_fp16\": 989, \"mem_bw_gbs\": 3350}],"
     " \"nodes\": ["
     "  {\"gpu_type\": \"V100\", \"gpus_per_node\": 8, \"count\": 8},"
     "  {\"gpu_type\": \"A100\", \"gpus_per_node\": 8, \"count\": 6},"
     "  {\"gpu_type\": \"H100\", \"gpus_per_node\": 8, \"count\": 4}]}"},
};

#define NPRESETS (sizeof presets / sizeof presets[0])

int cluster_preset(const char *name, struct cluster **out)
{
    *out = NULL;
    for (size_t i = 0; i < NPRESETS; i++) {
        if (strcmp(presets[i].name, name) != 0)
            continue;
        struct sim_error err = {0};
        int rc = cluster_parse(presets[i].json, name, out, &err);
        SIM_ASSERT(rc == 0 || rc == SIM_ENOMEM);
        return rc;
    }
    return SIM_ENOTFOUND;
}

const char *cluster_preset_name(size_t i)
{
    return i < NPRESETS ? presets[i].name : NULL;
}

const char *cluster_preset_description(size_t i)
{
    return i < NPRESETS ? presets[i].description : NULL;
}
