#!/usr/bin/env python3
"""fifo_events.py -- the second reference loop of `make bench`: a
discrete-event FIFO simulation in plain Python, the way a specialised
script written for one experiment would do it, over gen_trace's CSV
(job_id,submit_time,num_gpus,duration; sorted by submit time).

Unlike fifo_ref.py, which only works for one-GPU jobs (each job takes the
GPU that frees first), this one keeps an event heap of arrivals and
finishes, a FIFO queue and a count of free GPUs, and starts the queue's
head while it fits: the same work as hetsim's engine for FIFO, on jobs of
any GPU count. It prints the jobs, the mean wait and the makespan, which
must agree with hetsim's summary.json and fifo_ref.py on the same trace.

Usage: fifo_events.py TRACE.csv GPUS
"""
import heapq
import sys
from collections import deque

FINISH = 0  # the heap holds finishes; arrivals are read one row ahead


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: fifo_events.py TRACE.csv GPUS\n")
        return 2
    free = int(sys.argv[2])
    events = []  # (time, FINISH, seq, gpus)
    queue = deque()
    seq = 0
    n = 0
    wait_sum = 0.0
    makespan = 0.0
    with open(sys.argv[1], "r", encoding="ascii") as f:
        header = f.readline().strip().split(",")
        it = header.index("submit_time")
        ig = header.index("num_gpus")
        idur = header.index("duration")
        rows = iter(f)
        nxt = next(rows, None)  # the next arrival, read one row ahead
        while nxt is not None or events:
            if nxt is not None:
                row = nxt.split(",")
                job = (float(row[it]), int(row[ig]), float(row[idur]))
                if not events or job[0] <= events[0][0]:
                    # arrivals come sorted: read on only when it is next
                    # (at one time, arrivals before finishes)
                    queue.append(job)
                    nxt = next(rows, None)
                    n += 1
                    now = job[0]
                else:
                    now, _, _, gpus = heapq.heappop(events)
                    free += gpus
            else:
                now, _, _, gpus = heapq.heappop(events)
                free += gpus
            while queue and queue[0][1] <= free:
                submit, gpus, dur = queue.popleft()
                free -= gpus
                wait_sum += now - submit
                end = now + dur
                if end > makespan:
                    makespan = end
                seq += 1
                heapq.heappush(events, (end, FINISH, seq, gpus))
    print("jobs %d avg_wait_s %.6f makespan_s %.6f"
          % (n, wait_sum / n if n else 0.0, makespan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
