"""fifo with parameters, to check --policy-opt against params"""
class Policy:
    params = {"alpha": (0.5, "a number"), "greedy": False, "label": "x"}

    def __init__(self, config):
        assert isinstance(config.opts["alpha"], float)
        assert isinstance(config.opts["greedy"], bool)
        self.opts = config.opts

    def schedule(self, sim):
        for job in sim.queue():
            placement = sim.place(job)
            if placement is None:
                return
            sim.start(job, placement)
