#!/usr/bin/python3
"""Solves LPs dumped by hetsim (HETSIM_IPM_DUMP=FILE) with scipy's legacy
interior-point linprog, the solver of Gavel's reference runs, and prints
the points: the expectations of tests/policies/test_ipm.c.

Needs Debian 12's python3-scipy (scipy 1.10.1, numpy 1.24.2: the versions
tests/data/gavel-reference/MANIFEST.md names); run with /usr/bin/python3:

    /usr/bin/python3 scipy_points.py LPS.txt [FIRST COUNT] > OUT.txt

Output: for each LP, "lp N M NNZ" and its data as read (so OUT.txt is a
fixture on its own), then "scipy STATUS NIT" and the point x."""
import sys
import warnings

import numpy as np
import scipy
from scipy.optimize import linprog


def read_lps(path):
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("lp "):
            i += 1
            continue
        head = lines[i]
        n, m, nnz = (int(v) for v in head.split()[1:])
        ent = lines[i + 1:i + 1 + nnz]
        rest = lines[i + 1 + nnz:i + 5 + nnz]
        yield head, n, m, ent, rest
        i += 5 + nnz


def main():
    assert scipy.__version__ == "1.10.1", scipy.__version__
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10**9
    for k, (head, n, m, ent, rest) in enumerate(read_lps(sys.argv[1])):
        if k < first:
            continue
        if k >= first + count:
            break
        a = np.zeros((m, n))
        for e in ent:
            r, c, v = e.split()
            a[int(r), int(c)] = float(v)
        b, c, lb, ub = (np.array([float(v) for v in r.split()]) for r in rest)
        bounds = [(None if l == -np.inf else l, None if u == np.inf else u)
                  for l, u in zip(lb, ub)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = linprog(c, A_ub=a, b_ub=b, bounds=bounds,
                          method="interior-point")
        print(head)
        print("\n".join(ent))
        print("\n".join(rest))
        print("scipy %d %d" % (res.status, res.nit))
        print(" ".join("%.17g" % v for v in res.x))


main()
