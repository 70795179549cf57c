#!/usr/bin/env python3
"""Convert a Gavel msr trace (7 tab-separated fields) to hetsim's native CSV.

Usage: to_native.py TRACE THROUGHPUTS.json > OUT.csv

Kept for the record of how traces/gavel/msr-seed0-6214e9.csv was made; hetsim
itself does not need Python. Columns written:
  job_id        msr-<line number>
  submit_time   Gavel's arrival_time_s
  num_gpus      Gavel's scale_factor
  duration      total_steps / throughput on V100 (Gavel's measurement, steps/s)
  job_type      Gavel's job type
  gpu_type      the GPU types whose measured throughput is non-zero
  iterations    total_steps
A GPU count with no measurement uses the largest measured count of that job
type, scaled linearly: throughput(n) = throughput(m) * n / m.
"""
import ast
import json
import sys

TYPES = [("V100", "v100"), ("P100", "p100"), ("K80", "k80")]


def load(path):
    table = {}
    for worker, entries in json.load(open(path)).items():
        for key, value in entries.items():
            job_type, sf = ast.literal_eval(key)
            table[(worker, job_type, sf)] = value["null"]
    return table


def throughput(table, worker, job_type, n):
    if (worker, job_type, n) in table:
        return table[(worker, job_type, n)]
    m = max(sf for (w, jt, sf) in table if w == worker and jt == job_type)
    return table[(worker, job_type, m)] * n / m


def main():
    trace, thr_path = sys.argv[1], sys.argv[2]
    table = load(thr_path)
    print("job_id,submit_time,num_gpus,duration,job_type,gpu_type,iterations")
    for i, line in enumerate(open(trace), 1):
        f = line.rstrip("\n").split("\t")
        job_type, steps, arrival, n = f[0], int(f[4]), float(f[5]), int(f[6])
        allowed = [name for name, w in TYPES
                   if throughput(table, w, job_type, n) > 0]
        duration = steps / throughput(table, "v100", job_type, n)
        print(f"msr-{i},{arrival!r},{n},{duration!r},\"{job_type}\","
              f"{'|'.join(allowed)},{steps}")


if __name__ == "__main__":
    main()
