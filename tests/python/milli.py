"""FIFO that checks what sim says of shares: job_gpu_milli against the
gpu_milli column of traces/alibaba2023/pods.csv (pods 0-3: 250, 1000, 1000,
1000), and job_est_gpu_util = -1 (no --estimates)."""
import heapq

POD_MILLI = {0: 250, 1: 1000, 2: 1000, 3: 1000}


class Policy:
    def __init__(self, config):
        self.waiting = []
        self.arrivals = 0

    def on_arrival(self, sim, job):
        if job in POD_MILLI and sim.job_gpu_milli(job) != POD_MILLI[job]:
            raise ValueError("pod %d: gpu_milli %d" %
                             (job, sim.job_gpu_milli(job)))
        if sim.job_est_gpu_util(job) != -1:
            raise ValueError("pod %d: an estimate without --estimates" % job)
        heapq.heappush(self.waiting,
                       (sim.job_submit_time(job), self.arrivals, job))
        self.arrivals += 1

    def schedule(self, sim):
        while self.waiting:
            job = self.waiting[0][2]
            placement = sim.place(job)
            if placement is None:
                return
            sim.start(job, placement)
            heapq.heappop(self.waiting)
