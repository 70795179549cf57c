"""raises in schedule: the run must stop with exit 1, FILE:LINE first"""
class Policy:
    def schedule(self, sim):
        if sim.queue_len() > 0:
            return 1 / 0  # line 5
