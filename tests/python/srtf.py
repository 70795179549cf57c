"""preemptive shortest remaining time first, for 1-GPU jobs, in Python"""
# A test fixture (tests/python/run.sh): textbook multi-server SRPT, the
# rule hetsim's built-in srtf reduces to with exact estimates, identical
# GPUs and 1-GPU jobs. At each pass the G jobs (G = all GPUs) with the least
# estimated time left run, ties by submit time then job number; the others
# wait. Written from that definition, not from policies/srtf.c.
class Policy:
    needs_estimates = True
    preemptive = True

    def __init__(self, config):
        self.running = set()

    def on_finish(self, sim, job):
        self.running.discard(job)

    def schedule(self, sim):
        gpus = sum(sim.gpu_type_gpus(t) for t in range(sim.num_gpu_types()))

        def rank(j):
            return (sim.job_est_remaining_s(j), sim.job_submit_time(j), j)

        best = sorted(list(self.running) + sim.queue(), key=rank)[:gpus]
        chosen = set(best)
        for j in sorted(self.running - chosen):
            sim.preempt(j)
            self.running.discard(j)
        for j in best:
            if j not in self.running:
                sim.start(j, sim.place(j))
                self.running.add(j)
