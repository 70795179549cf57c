"""shortest estimated run time first, non-preemptive, in Python"""
# The built-in sjf, written against the Python policy API (docs/python.md):
# waiting jobs start in increasing estimated run time, taken once at
# arrival (job_est_remaining_s: on the job's fastest allowed GPU type, one
# node), ties by arrival; the first job that cannot be placed blocks the
# rest. Its jobs.csv equals the built-in's (tests/python/).
import heapq


class Policy:
    needs_estimates = True  # refuse to run without --estimates

    def __init__(self, config):
        self.waiting = []  # (estimate, arrival number, job)
        self.arrivals = 0

    def on_arrival(self, sim, job):
        heapq.heappush(self.waiting,
                       (sim.job_est_remaining_s(job), self.arrivals, job))
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
