#!/usr/bin/python3
"""Writes the end-to-end training fixture of the predictor tests (float64).

The whole of pred_fit with hetsim's recipe, done independently in PyTorch:
  - the validation rows: GSL's mt19937 and gsl_ran_shuffle (re-implemented
    below from GSL's documented algorithms) permute the rows with seed
    seed + 104729, the last round(val_frac * n) validate;
  - standardization of every numeric feature (population sd, 1 when
    constant) and of log(y) on the fitted rows only;
  - every epoch the fitted rows are reshuffled (the same generator seeded
    with seed, reshuffling its permutation in place), mini-batches of
    `batch` rows in that order, the last one partial;
  - the loss is the mean squared error of the batch; the gradient is
    clipped to a global norm (torch.nn.utils.clip_grad_norm_), then
    torch.optim.AdamW with weight decay on weight matrices only (GRU and
    linear weights; not embeddings, positions, biases, norms);
  - the learning rate warms up linearly, then follows a half cosine down to
    lr * lr_min at the last step;
  - after every epoch the validation MSE (standardized units); the weights
    of the best epoch are kept;
  - predictions for new rows in original units (exp of the de-standardized
    output).
Dropout is 0. The network is torch_fixture.Net (torch.nn.GRU, Linear,
LayerNorm, autograd). Run from the repository root:
    /usr/bin/python3 tests/predictor/torch_train_fixture.py tests/data/predictor
The C test (tests/predictor/fixture.c) reads the file; it never runs Python.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_fixture import Net, line  # noqa: E402

torch.set_default_dtype(torch.float64)


class GslMt19937:
    """GSL's gsl_rng_mt19937: gsl_rng_set (seed 0 means 4357) and get."""

    def __init__(self, seed):
        s = seed & 0xffffffff or 4357
        self.mt = [s]
        for i in range(1, 624):
            prev = self.mt[i - 1]
            self.mt.append((1812433253 * (prev ^ (prev >> 30)) + i)
                           & 0xffffffff)
        self.i = 624

    def get(self):
        if self.i >= 624:
            for k in range(624):
                y = (self.mt[k] & 0x80000000) | (self.mt[(k + 1) % 624]
                                                 & 0x7fffffff)
                v = self.mt[(k + 397) % 624] ^ (y >> 1)
                if y & 1:
                    v ^= 0x9908b0df
                self.mt[k] = v
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9d2c5680
        y ^= (y << 15) & 0xefc60000
        y ^= y >> 18
        return y

    def uniform_int(self, n):
        """gsl_rng_uniform_int: k = get / (range / n), retried if k >= n."""
        scale = 0xffffffff // n
        while True:
            k = self.get() // scale
            if k < n:
                return k

    def shuffle(self, a):
        """gsl_ran_shuffle: for i from n-1 down to 1 swap a[i] and a[j],
        j uniform in [0, i]."""
        for i in range(len(a) - 1, 0, -1):
            j = self.uniform_int(i + 1)
            a[i], a[j] = a[j], a[i]


CFG = dict(d_model=5, gru_fwd=3, gru_bwd=2, n_attn=1, n_heads=2, head_dim=3,
           d_ff=6, order=0, pool=0, levels=[0, 3, 0])
TRAIN = dict(n=37, steps=23, batch=8, warmup=4, lr=0.01, lr_min=0.1,
             weight_decay=0.05, clip=3.0, val_frac=0.25, seed=7)


def lr_at(s, total):
    t = TRAIN
    if s < t["warmup"]:
        return t["lr"] * (s + 1) / t["warmup"]
    span = total - t["warmup"]
    frac = (s - t["warmup"]) / (span - 1) if span > 1 else 1.0
    lo = t["lr"] * t["lr_min"]
    return lo + 0.5 * (t["lr"] - lo) * (1 + math.cos(math.pi * frac))


def rows(n, gen):
    x = torch.empty(n, 3)
    x[:, 0] = torch.randn(n, generator=gen) * 3 + 10
    x[:, 1] = torch.randint(0, 3, (n,), generator=gen).to(torch.float64)
    x[:, 2] = torch.rand(n, generator=gen) * 100
    y = torch.exp(0.2 * x[:, 0] + 0.5 * x[:, 1] - 0.01 * x[:, 2]
                  + 0.1 * torch.randn(n, generator=gen))
    return x, y


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/predictor"
    gen = torch.Generator().manual_seed(11)
    torch.manual_seed(12)
    net = Net(CFG)
    with torch.no_grad():
        for p in net.ordered_params():
            p.uniform_(-0.5, 0.5, generator=gen)
        for b in net.blocks:
            b.ln1.weight.add_(1.0)
            b.ln2.weight.add_(1.0)
    params = net.ordered_params()
    trans = set(id(t) for t in net.transposed())

    def flat(ts):
        return torch.cat([(t.t() if id(p) in trans else t).detach()
                          .reshape(-1) for t, p in zip(ts, params)])
    p0 = flat(params)
    t = TRAIN
    n = t["n"]
    x, y = rows(n, gen)
    xnew, ynew = rows(5, gen)

    # Validation rows: the last round(0.25 n) of a seeded permutation.
    nv = int(math.floor(t["val_frac"] * n + 0.5))
    nf = n - nv
    perm = list(range(n))
    GslMt19937(t["seed"] + 104729).shuffle(perm)
    xo, yo = x[perm], y[perm]
    xf, yf, xv, yv = xo[:nf], yo[:nf], xo[nf:], yo[nf:]

    # Standardization on the fitted rows (categorical column 1 kept).
    def scale(col):
        m = col.mean()
        sd = ((col - m) ** 2).mean().sqrt()
        return m, (sd if sd > 0 else torch.tensor(1.0))
    xs = []
    for i, nl in enumerate(CFG["levels"]):
        xs.append(scale(xf[:, i]) if nl == 0 else (0.0, 1.0))
    ym, ysd = scale(torch.log(yf))

    def std_x(xx):
        z = xx.clone()
        for i, (m, sd) in enumerate(xs):
            if CFG["levels"][i] == 0:
                z[:, i] = (xx[:, i] - m) / sd
        return z
    zf, zv = std_x(xf), std_x(xv)
    tf, tv = (torch.log(yf) - ym) / ysd, (torch.log(yv) - ym) / ysd

    decay = [p for p in params if id(p) in trans]
    rest = [p for p in params if id(p) not in trans]
    opt = torch.optim.AdamW(
        [dict(params=decay, weight_decay=t["weight_decay"]),
         dict(params=rest, weight_decay=0.0)],
        lr=t["lr"], betas=(0.9, 0.999), eps=1e-8)
    rng = GslMt19937(t["seed"])
    order = list(range(nf))
    total, step, best, best_step, clipped = t["steps"], 0, None, 0, 0
    best_params, epoch_losses = None, []
    while step < total:
        rng.shuffle(order)
        s, loss_sum = 0, 0.0
        while s < nf and step < total:
            idx = order[s:s + t["batch"]]
            for g in opt.param_groups:
                g["lr"] = lr_at(step, total)
            opt.zero_grad()
            loss = ((net(zf[idx]) - tf[idx]) ** 2).mean()
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(params, t["clip"])
            clipped += int(float(norm) > t["clip"])
            opt.step()
            loss_sum += float(loss) * len(idx)
            s += t["batch"]
            step += 1
        epoch_losses.append(loss_sum / min(s, nf))
        with torch.no_grad():
            v = float(((net(zv) - tv) ** 2).mean())
        if best is None or v < best:
            best, best_step = v, step
            best_params = [p.detach().clone() for p in params]
    print("clipped in", clipped, "of", total, "steps; best step", best_step)
    assert 0 < clipped < total, "clipping should be active only sometimes"
    with torch.no_grad():
        for p, b in zip(params, best_params):
            p.copy_(b)
        pred = torch.exp(net(std_x(xnew)) * ysd + ym)

    with open(os.path.join(out, "train_loop.txt"), "w") as f:
        f.write("# made by tests/predictor/torch_train_fixture.py, torch %s\n"
                % torch.__version__)
        line(f, "arch", [CFG[k] for k in ("d_model", "gru_fwd", "gru_bwd",
                                          "n_attn", "n_heads", "head_dim",
                                          "d_ff", "order", "pool")])
        line(f, "levels", CFG["levels"])
        line(f, "opts", [t[k] for k in ("steps", "batch", "warmup", "lr",
                                        "lr_min", "weight_decay", "clip",
                                        "val_frac", "seed")])
        line(f, "x", x.reshape(-1))
        line(f, "y", y)
        line(f, "params", p0)
        line(f, "val_perm", perm)
        line(f, "epoch_losses", epoch_losses)
        line(f, "best", [best_step, best])
        line(f, "params_after", flat(params))
        line(f, "x_new", xnew.reshape(-1))
        line(f, "predicted", pred)


if __name__ == "__main__":
    main()
