/* fixtures.c -- see fixtures.h. */
#include "fixtures.h"

const char *const ts_k80_p100 =
    "{\"reference_gpu\": \"P100\","
    " \"gpu_types\": ["
    "   {\"name\": \"K80\", \"memory_mb\": 12288, \"speed\": 0.5},"
    "   {\"name\": \"P100\", \"memory_mb\": 16384, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"K80\", \"gpus_per_node\": 2},"
    "           {\"gpu_type\": \"P100\", \"gpus_per_node\": 2}]}";

const char *const ts_three_nodes =
    "{\"name\": \"share\", \"gpu_types\": ["
    " {\"name\": \"A\", \"memory_mb\": 16384, \"speed\": 1},"
    " {\"name\": \"B\", \"memory_mb\": 16384, \"speed\": 1}],"
    " \"nodes\": [{\"gpu_type\": \"A\", \"gpus_per_node\": 2, \"count\": 1},"
    "  {\"gpu_type\": \"A\", \"gpus_per_node\": 4, \"count\": 1},"
    "  {\"gpu_type\": \"B\", \"gpus_per_node\": 2, \"count\": 1}]}";

int ts_first_node_schedule(void *state, struct sim *s)
{
    (void)state;
    int32_t j = sim_queue_head(s);
    while (j >= 0) {
        int32_t next = sim_queue_next(s, (uint32_t)j);
        const struct sim_job *job = sim_job(s, (uint32_t)j);
        for (int32_t t = 0; t < sim_cluster(s)->ntypes; t++) {
            if (!(job->allowed & (1u << t)))
                continue;
            int32_t node = sim_find_node(s, t, job->num_gpus);
            if (node < 0)
                continue;
            struct sim_seg seg = {node, job->num_gpus};
            struct sim_placement p = {t, 1, &seg, NULL};
            int rc = sim_start(s, (uint32_t)j, &p);
            if (rc)
                return rc;
            break;
        }
        j = next;
    }
    return 0;
}
