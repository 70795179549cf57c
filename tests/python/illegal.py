"""starts a job twice and does not catch IllegalDecision"""
class Policy:
    def schedule(self, sim):
        job = sim.queue_head()
        if job >= 0:
            placement = sim.place(job)
            if placement is not None:
                sim.start(job, placement)
                sim.start(job, placement)  # line 9
