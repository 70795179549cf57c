#!/usr/bin/env python3
"""An independent FIFO schedule of the shipped trace, to check hetsim's.

Reads traces/gavel/msr-seed0-6214e9.csv (2,000 jobs), keeps what a pool of
identical GPUs needs (job id, submit time, GPUs, duration) and schedules it
by strict FIFO on one server of 108 GPUs of speed 1 (tests/golden/
pool-108.json): the job at the head of the queue starts as soon as it has
arrived, the job before it has started, and enough GPUs are free; nothing
passes it. Written from the definitions of the README ("Definitions":
JCT = finish - submit, makespan = last finish - first submit), not from
hetsim's code.

Usage: fifo_reference.py TRACE OUT.csv GOLDEN.json
Writes the reduced trace to OUT.csv and the figures, as a golden file of
`hetsim check`, to GOLDEN.json.
"""
import csv
import heapq
import json
import sys

GPUS = 108


def main(trace, out_csv, out_golden):
    with open(trace, newline="") as f:
        jobs = [(float(r["submit_time"]), int(r["num_gpus"]),
                 float(r["duration"]), r["job_id"]) for r in csv.DictReader(f)]
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["job_id", "submit_time", "num_gpus", "duration"])
        for submit, gpus, duration, job_id in jobs:
            w.writerow([job_id, repr(submit), gpus, repr(duration)])
    # FIFO order is arrival order; equal submit times keep file order.
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i][0], i))
    running = []  # heap of (finish, gpus)
    free, last_start = GPUS, 0.0
    jct, wait, finish_max = [], [], 0.0
    for i in order:
        submit, gpus, duration, _ = jobs[i]
        t = max(submit, last_start)
        while True:
            while running and running[0][0] <= t:
                free += heapq.heappop(running)[1]
            if free >= gpus:
                break
            t = running[0][0]  # wait for the next finish
        free -= gpus
        finish = t + duration
        heapq.heappush(running, (finish, gpus))
        last_start = t
        jct.append(finish - submit)
        wait.append(t - submit)
        finish_max = max(finish_max, finish)
    first_submit = min(j[0] for j in jobs)
    figures = {
        "jobs_completed": len(jobs),
        "makespan_s": finish_max - first_submit,
        "avg_jct_s": sum(jct) / len(jct),
        "avg_wait_s": sum(wait) / len(wait),
    }
    with open(out_golden, "w") as f:
        json.dump({"hetsim_baseline": 1,
                   "comment": "independent FIFO reference "
                              "(tests/golden/fifo_reference.py)",
                   "tolerance": 1e-9, "figures": figures}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
