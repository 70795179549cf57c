"""`import hetsim` (build/python/hetsim.so) against the hetsim program.

CTest python_module: python3 module_test.py HETSIM_BINARY, with PYTHONPATH
holding build/python. The same policy run by hetsim.run() and by
`hetsim run` must give the same summary.json and jobs.csv; a policy's
exception must reach the caller as itself; misuse as hetsim.Error with the
program's exit code. Exits 1 on the first failed check."""
import csv
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import hetsim

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
TRACE = os.path.join(SRC, "traces", "gavel", "msr-seed0-6214e9.csv")
CLUSTER = "gavel-108"
# Fields that name the policy or measure this machine, not the simulation.
NOT_SIMULATED = {"policy"}


def cli_run(binary, work, name, policy, *args):
    out = os.path.join(work, name)
    subprocess.run([binary, "run", "-q", "--trace", TRACE, "--cluster",
                    CLUSTER, "--policy", policy, "--out", out, *args],
                   check=True)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "jobs.csv"), newline="") as f:
        jobs = list(csv.DictReader(f))
    return summary, jobs


def same(what, a, b):
    if a != b:
        print(f"FAIL: {what}:\n  {a}\n  {b}")
        sys.exit(1)
    print(f"ok: {what}")


def simulated(summary):
    return {k: v for k, v in summary.items() if k not in NOT_SIMULATED}


def load_class(path):
    spec = importlib.util.spec_from_file_location("policy_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Policy


def main(binary):
    sjf_py = os.path.join(SRC, "policies", "examples", "sjf.py")
    fifo_py = os.path.join(SRC, "policies", "examples", "fifo.py")
    with tempfile.TemporaryDirectory(prefix="hetsim-module-") as work:
        for label, policy, args in (
                ("built-in sjf", "sjf", ["--estimates", "oracle"]),
                ("sjf.py by path", sjf_py, ["--estimates", "oracle"]),
                ("fifo.py by path", fifo_py, [])):
            want, want_jobs = cli_run(binary, work, label.split()[0], policy,
                                      *args)
            got, jobs = hetsim.run(trace=TRACE, cluster=CLUSTER,
                                   policy=policy, estimates=args[1]
                                   if args else None, frame=False)
            same(f"{label}: summary, hetsim.run vs hetsim run", got, want)
            same(f"{label}: jobs", [str(j["job_id"]) for j in jobs],
                 [j["job_id"] for j in want_jobs])
            same(f"{label}: finish times",
                 [float(j["finish_time"]) for j in jobs],
                 [float(j["finish_time"]) for j in want_jobs])
        # A class, as a notebook hands it over, against its file by path.
        want, _ = cli_run(binary, work, "fifo2", fifo_py)
        got, _ = hetsim.run(trace=TRACE, cluster=CLUSTER,
                            policy=load_class(fifo_py), frame=False)
        same("fifo.py's class: summary", simulated(got), simulated(want))
        same("the class's name in the summary", got["policy"],
             "python:policy_under_test.Policy")

    class Raises:
        def schedule(self, sim):
            if sim.queue_len():
                raise LookupError("from the policy")
    try:
        hetsim.run(trace=TRACE, cluster=CLUSTER, policy=Raises)
        same("a raising policy raises", "returned", "raised")
    except LookupError as e:
        same("a raising policy's exception reaches the caller", str(e),
             "from the policy")
    try:
        hetsim.run(trace=TRACE, cluster=CLUSTER, policy="fifo",
                   policy_opts={"nope": 1})
        same("an unknown option raises", "returned", "raised")
    except hetsim.Error as e:
        same("an unknown option: hetsim.Error with exit code 2", e.code, 2)
        same("and the program's message", "policy fifo has no option 'nope'"
             in e.messages, True)


if __name__ == "__main__":
    main(sys.argv[1])
