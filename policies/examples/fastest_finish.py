"""each job to the GPU type that finishes it first, counting the wait"""
# Each waiting job, in arrival order, on each type it may use: finish = when enough
# GPUs of the type are free (expected ends of the jobs running there) + its run time
# there. It starts if its best type has room; else no job behind it takes that type.
import hetsim


class Policy:
    def __init__(self, config):
        self.running = {}  # job -> (type, expected end, GPUs)

    def on_finish(self, sim, job):
        self.running.pop(job, None)

    def finish_on(self, sim, job, t, now, ends):
        run = sim.job_runtime_on(job, t, False) or sim.job_runtime_on(job, t, True)
        free, need, when = sim.free_gpus(t), sim.job_num_gpus(job), now
        for end, gpus in ends[t]:
            if free >= need:
                break
            free, when = free + gpus, end
        return when + run if run > 0 and free >= need else None

    def place_on(self, sim, job, t, nodes):
        need = sim.job_num_gpus(job)
        for n in nodes[t]:
            if sim.node_free(n) >= need:
                return hetsim.Placement(t, [(n, need)])
        segs, left = [], need
        for n in nodes[t]:
            if left and sim.node_free(n):
                segs.append((n, min(sim.node_free(n), left)))
                left -= segs[-1][1]
        spread_ok = not left and sim.job_runtime_on(job, t, True) > 0
        return hetsim.Placement(t, segs) if spread_ok else None

    def schedule(self, sim):
        types, now, held = range(sim.num_gpu_types()), sim.now(), set()
        nodes = [[n for n in range(sim.num_nodes()) if sim.node_gpu_type(n) == t]
                 for t in types]
        ends = [sorted((e, g) for ty, e, g in self.running.values() if ty == t)
                for t in types]
        for job in sim.queue():
            mine = [(f, t) for t in types if sim.job_allowed_types(job) >> t & 1
                    and t not in held
                    and (f := self.finish_on(sim, job, t, now, ends)) is not None]
            if not mine:
                continue
            t = min(mine)[1]
            p = self.place_on(sim, job, t, nodes)
            if p is None:
                held.add(t)  # it waits for t: nobody behind it takes t now
                if len(held) == len(types):
                    return
                continue
            sim.start(job, p)
            end = now + sim.job_runtime_on(job, t, p.nseg > 1)
            self.running[job] = (t, end, p.num_gpus)
            ends[t] = sorted(ends[t] + [(end, p.num_gpus)])
