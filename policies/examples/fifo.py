"""first come, first served, in Python; the head of the queue blocks the rest"""
# The built-in fifo, written against the Python policy API (docs/python.md):
# jobs start in submit order (ties in arrival order); when the first one
# cannot be placed, nothing behind it starts. Its jobs.csv equals the
# built-in's (tests/python/).
import heapq


class Policy:
    def __init__(self, config):
        self.waiting = []  # (submit time, arrival number, job)
        self.arrivals = 0

    def on_arrival(self, sim, job):
        heapq.heappush(self.waiting,
                       (sim.job_submit_time(job), self.arrivals, job))
        self.arrivals += 1

    def schedule(self, sim):
        waiting = self.waiting
        while waiting:
            job = waiting[0][2]
            placement = sim.place(job)
            if placement is None:
                return
            sim.start(job, placement)
            heapq.heappop(waiting)
