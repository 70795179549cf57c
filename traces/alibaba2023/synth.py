#!/usr/bin/env python3
"""synth.py -- a synthetic pod list and node list in the schema of Alibaba's
GPU cluster trace 2023 (openb_pod_list_*.csv, openb_node_list_gpu_node.csv;
Weng et al., "Beware of Fragmentation", USENIX ATC'23), for the FGD-style
packing experiment (`hetsim pack`).

Usage: synth.py [--seed N] [--pods N] [--nodes N] OUT_PODS.csv OUT_NODES.csv

Nothing here is measured from the real trace: the mix below is hetsim's own
choice, made to hold the features that the paper's experiment depends on
(many pods asking for a share of one GPU, 1/2/4/8 whole-GPU pods, CPU and
memory asks, a few pods pinned to a GPU model, nodes of 2, 4 and 8 GPUs).

Nodes: a unit of 64 (392 GPUs), repeated and cut at --nodes (default 64):
  24 x 8 V100M16 (96 cores, 384 GiB)    16 x 8 G2 (128 cores, 768 GiB)
  12 x 4 T4 (64 cores, 256 GiB)          12 x 2 P100 (32 cores, 128 GiB)
Pods (each drawn independently, in this order of draws):
  GPU ask: share of one GPU with probability 0.44, gpu_milli from
    100:.05 200:.05 250:.07 300:.05 500:.15 600:.04 700:.03 (weights of the
    whole mix); else whole GPUs 1:.38 2:.08 4:.06 8:.04;
  cpu_milli: 4000 or 8000 (even odds) per pod for a share, per GPU for
    whole GPUs; memory_mib = 4 x cpu_milli (4 MiB per milli-CPU);
  gpu_spec: "" (0.85), "V100M16" (0.10), "T4" (0.05);
  creation_time 10 s apart; scheduled = creation; run time exponential of
  mean 3600 s (rounded up to whole seconds); qos LS/BE/Burstable uniform.
Python's random.Random(seed) (Mersenne Twister) makes the same files for
the same seed on every Python 3.
"""
import argparse
import math
import random

NODE_GROUPS = [  # count per unit of scale, GPUs, model, cpu_milli, memory_mib
    (24, 8, "V100M16", 96000, 393216),
    (16, 8, "G2", 128000, 786432),
    (12, 4, "T4", 64000, 262144),
    (12, 2, "P100", 32000, 131072),
]
GPU_ASKS = [  # (num_gpu, gpu_milli), weight
    ((1, 100), .05), ((1, 200), .05), ((1, 250), .07), ((1, 300), .05),
    ((1, 500), .15), ((1, 600), .04), ((1, 700), .03),
    ((1, 1000), .38), ((2, 1000), .08), ((4, 1000), .06), ((8, 1000), .04),
]
SPECS = [("", .85), ("V100M16", .10), ("T4", .05)]


def pick(rng, table):
    x = rng.random()
    for value, weight in table:
        x -= weight
        if x < 0:
            return value
    return table[-1][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pods", type=int, default=420)
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("pods_csv")
    ap.add_argument("nodes_csv")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.nodes_csv, "w", newline="\n") as f:
        f.write("sn,cpu_milli,memory_mib,gpu,model\n")
        unit = [g[1:] for g in NODE_GROUPS for _ in range(g[0])]
        for k in range(a.nodes):
            gpus, model, cpu, mem = unit[k % len(unit)]
            f.write(f"node-{k:05d},{cpu},{mem},{gpus},{model}\n")
    with open(a.pods_csv, "w", newline="\n") as f:
        f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
                "pod_phase,creation_time,deletion_time,scheduled_time\n")
        for i in range(a.pods):
            num_gpu, milli = pick(rng, GPU_ASKS)
            cpu = rng.choice((4000, 8000)) * (num_gpu if milli == 1000 else 1)
            spec = pick(rng, SPECS)
            run = max(1, math.ceil(rng.expovariate(1 / 3600)))
            qos = rng.choice(("LS", "BE", "Burstable"))
            t = 10 * i
            f.write(f"pod-{i:05d},{cpu},{4 * cpu},{num_gpu},{milli},{spec},"
                    f"{qos},Succeeded,{t},{t + run},{t}\n")


if __name__ == "__main__":
    main()
