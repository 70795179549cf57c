"""fifo that also tries illegal decisions and catches them: runs to the end"""
import hetsim


class Policy:
    def __init__(self):
        self.caught = 0

    def schedule(self, sim):
        while sim.queue_len() > 0:
            job = sim.queue_head()
            placement = sim.place(job)
            if placement is None:
                break
            sim.start(job, placement)
            for bad in (lambda: sim.start(job, placement),
                        lambda: sim.preempt(sim.queue_head()),
                        lambda: sim.wake_at(sim.now() - 1)):
                try:
                    bad()
                    raise AssertionError("an illegal decision went through")
                except hetsim.IllegalDecision:
                    self.caught += 1
                except IndexError:  # queue_head() -1: no job to preempt
                    self.caught += 1
