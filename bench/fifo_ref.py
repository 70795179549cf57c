#!/usr/bin/env python3
"""fifo_ref.py -- the reference loop of `make bench`: FIFO of one-GPU jobs on
G identical GPUs with a heapq of finish times, over gen_trace's CSV
(job_id,submit_time,num_gpus,duration; sorted by submit time).

It is what a specialised script does for this one case, and the figure hetsim's
whole command is compared with. It reads every row (as hetsim does), runs the
jobs in arrival order (a job starts at max(its arrival, the earliest free GPU)),
and prints the jobs, the mean wait and the makespan, which must agree with
hetsim's summary.json on the same trace (the bench prints both).

Usage: fifo_ref.py TRACE.csv GPUS
"""
import heapq
import sys


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: fifo_ref.py TRACE.csv GPUS\n")
        return 2
    gpus = int(sys.argv[2])
    free_at = [0.0] * gpus  # a min-heap: when each GPU is free again
    n = 0
    wait_sum = 0.0
    makespan = 0.0
    with open(sys.argv[1], "r", encoding="ascii") as f:
        header = f.readline().strip().split(",")
        it = header.index("submit_time")
        idur = header.index("duration")
        for line in f:
            row = line.split(",")
            submit = float(row[it])
            dur = float(row[idur])
            free = free_at[0]
            start = submit if submit > free else free
            end = start + dur
            heapq.heapreplace(free_at, end)
            wait_sum += start - submit
            if end > makespan:
                makespan = end
            n += 1
    print("jobs %d avg_wait_s %.6f makespan_s %.6f"
          % (n, wait_sum / n if n else 0.0, makespan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
