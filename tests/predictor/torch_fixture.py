#!/usr/bin/python3
"""Writes the PyTorch fixtures of the predictor tests (float64).

The same small network as predictor/ built from torch.nn.GRU, torch.nn.Linear,
torch.nn.LayerNorm and tensor operations, differentiated by autograd and
trained by torch.optim.Adam: an implementation independent of the C code.
Run from the repository root:
    /usr/bin/python3 tests/predictor/torch_fixture.py tests/data/predictor
It writes one text file per configuration: lines "key count v1 v2 ...".
The C test reads them; it never runs Python.
"""
import math
import os
import sys

import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


class Net(nn.Module):
    """Tokens -> [BiGRU] / [post-norm attention blocks] -> pool -> linear."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        c, t = cfg["d_model"], len(cfg["levels"])
        nnum = sum(1 for n in cfg["levels"] if n == 0)
        nlev = sum(cfg["levels"])
        self.emb_w = nn.Parameter(torch.empty(nnum, c))
        self.emb_b = nn.Parameter(torch.empty(nnum, c))
        self.emb_cat = nn.Parameter(torch.empty(nlev, c))
        self.pos = nn.Parameter(torch.empty(t, c))
        hf, hb = cfg["gru_fwd"], cfg["gru_bwd"]
        self.g = hf + hb
        self.gf = nn.GRU(c, hf, batch_first=True) if hf else None
        self.gb = nn.GRU(c, hb, batch_first=True) if hb else None
        gru_first = cfg["order"] == 0
        self.w = self.g if gru_first and self.g else c
        a = cfg["n_heads"] * cfg["head_dim"]
        self.blocks = nn.ModuleList()
        for _ in range(cfg["n_attn"]):
            blk = nn.Module()
            blk.qkv = nn.Linear(self.w, 3 * a)
            blk.o = nn.Linear(a, self.w)
            blk.ln1 = nn.LayerNorm(self.w, eps=1e-5)
            blk.f1 = nn.Linear(self.w, cfg["d_ff"])
            blk.f2 = nn.Linear(cfg["d_ff"], self.w)
            blk.ln2 = nn.LayerNorm(self.w, eps=1e-5)
            self.blocks.append(blk)
        last_gru = self.g and (not gru_first or cfg["n_attn"] == 0)
        self.p = self.g if last_gru else self.w
        self.fc = nn.Linear(self.p, 1)

    def ordered_params(self):
        """The parameters in the C layout's order (predictor/model.c)."""
        ps = [self.emb_w, self.emb_b, self.emb_cat, self.pos]
        for g in (self.gf, self.gb):
            if g is not None:
                ps += [g.weight_ih_l0, g.weight_hh_l0, g.bias_ih_l0,
                       g.bias_hh_l0]
        for b in self.blocks:
            ps += [b.qkv.weight, b.qkv.bias, b.o.weight, b.o.bias,
                   b.ln1.weight, b.ln1.bias, b.f1.weight, b.f1.bias,
                   b.f2.weight, b.f2.bias, b.ln2.weight, b.ln2.bias]
        return ps + [self.fc.weight, self.fc.bias]

    def transposed(self):
        """The tensors C stores input-major: torch's (out, in) matrices of
        Linear and GRU layers, written transposed."""
        ts = []
        for g in (self.gf, self.gb):
            if g is not None:
                ts += [g.weight_ih_l0, g.weight_hh_l0]
        for b in self.blocks:
            ts += [b.qkv.weight, b.o.weight, b.f1.weight, b.f2.weight]
        return ts + [self.fc.weight]

    def tokens(self, x):
        toks, num, off = [], 0, 0
        for i, nl in enumerate(self.cfg["levels"]):
            if nl == 0:
                toks.append(x[:, i:i + 1] * self.emb_w[num] + self.emb_b[num])
                num += 1
                continue
            code = x[:, i].long()
            known = ((code >= 0) & (code < nl)).to(x.dtype).unsqueeze(1)
            rows = self.emb_cat[off + code.clamp(0, nl - 1)]
            toks.append(rows * known)  # unknown level: zero embedding
            off += nl
        return torch.stack(toks, dim=1) + self.pos

    def bigru(self, x):
        outs = []
        if self.gf is not None:
            outs.append(self.gf(x)[0])
        if self.gb is not None:  # reads the flipped sequence
            outs.append(self.gb(x.flip(1))[0].flip(1))
        return torch.cat(outs, dim=2)

    def block(self, b, x):
        bs, t, _ = x.shape
        nh, hd = self.cfg["n_heads"], self.cfg["head_dim"]
        q, k, v = b.qkv(x).split(nh * hd, dim=2)
        q, k, v = (z.reshape(bs, t, nh, hd).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(hd), dim=3)
        a = (att @ v).transpose(1, 2).reshape(bs, t, nh * hd)
        x1 = b.ln1(x + b.o(a))
        return b.ln2(x1 + b.f2(torch.relu(b.f1(x1))))

    def forward(self, x):
        h = self.tokens(x)
        if self.g and self.cfg["order"] == 0:
            h = self.bigru(h)
        for b in self.blocks:
            h = self.block(b, h)
        if self.g and self.cfg["order"] == 1:
            h = self.bigru(h)
        h = h.mean(dim=1) if self.cfg["pool"] == 0 else h[:, -1]
        return self.fc(h).squeeze(1)


def line(f, key, values):
    vals = [float(v) for v in values]
    f.write(key + " " + str(len(vals)) + "".join(
        " " + repr(v) for v in vals) + "\n")


def make(path, cfg, seed):
    torch.manual_seed(seed)
    net = Net(cfg)
    with torch.no_grad():
        for p in net.ordered_params():
            p.uniform_(-0.6, 0.6)
        for b in net.blocks:  # layer norm gains around 1
            b.ln1.weight.add_(1.0)
            b.ln2.weight.add_(1.0)
    bs, levels = cfg["batch"], cfg["levels"]
    x = torch.empty(bs, len(levels))
    for i, nl in enumerate(levels):
        if nl == 0:
            x[:, i] = torch.randn(bs)
        else:
            x[:, i] = torch.randint(0, nl, (bs,)).to(torch.float64)
    x[1, cfg["unknown_col"]] = -1.0  # a level the schema does not know
    y = torch.randn(bs)
    params = net.ordered_params()
    trans = set(id(t) for t in net.transposed())

    def flat(ts):  # ts[i] is params[i] or its gradient
        return torch.cat([(t.t() if id(p) in trans else t).detach()
                          .reshape(-1) for t, p in zip(ts, params)])
    p0 = flat(params)

    out = net(x)
    loss = ((out - y) ** 2).mean()
    loss.backward()
    grads = flat([p.grad for p in params])

    clip = 0.5 * float(grads.norm())  # clipping is active at the start
    opt = torch.optim.Adam(params, lr=cfg["lr"], betas=(0.9, 0.999),
                           eps=1e-8, weight_decay=cfg["l2"])
    losses, clipped = [], 0
    for step in range(cfg["steps"]):
        if step == cfg["drop_step"]:
            for g in opt.param_groups:
                g["lr"] = cfg["lr_after"]
        opt.zero_grad()
        l = ((net(x) - y) ** 2).mean()
        l.backward()
        norm = torch.nn.utils.clip_grad_norm_(params, clip)
        clipped += int(float(norm) > clip)
        opt.step()
        losses.append(float(l))
    assert 0 < clipped < cfg["steps"], "clipping should be active only sometimes"

    with open(path, "w") as f:
        f.write("# made by tests/predictor/torch_fixture.py, torch %s\n"
                % torch.__version__)
        line(f, "arch", [cfg[k] for k in ("d_model", "gru_fwd", "gru_bwd",
                                          "n_attn", "n_heads", "head_dim",
                                          "d_ff", "order", "pool")])
        line(f, "levels", levels)
        line(f, "x", x.reshape(-1))
        line(f, "y", y)
        line(f, "params", p0)
        line(f, "out", out.detach())
        line(f, "loss", [float(loss)])
        line(f, "grads", grads)
        line(f, "train", [cfg["lr"], cfg["lr_after"], cfg["drop_step"],
                          cfg["l2"], clip, cfg["steps"]])
        line(f, "step_losses", losses)
        line(f, "params_after", flat(params))


BASE = dict(d_model=5, gru_fwd=3, gru_bwd=4, n_attn=2, n_heads=2, head_dim=3,
            d_ff=8, order=0, pool=0, levels=[0, 3, 0, 2], batch=6,
            unknown_col=1, lr=0.01, lr_after=0.001, drop_step=5, l2=0.001,
            steps=10)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/predictor"
    os.makedirs(out, exist_ok=True)
    # 40 rows: more than one training chunk (PRED_CHUNK 32) in C.
    make(os.path.join(out, "gru_first_mean.txt"), dict(BASE, batch=40), 1)
    make(os.path.join(out, "attention_first_last.txt"),
         dict(BASE, order=1, pool=1), 2)
    make(os.path.join(out, "transformer_only.txt"),
         dict(BASE, gru_fwd=0, gru_bwd=0, levels=[0, 3, 0, 2, 0]), 3)
    make(os.path.join(out, "bigru_only.txt"),
         dict(BASE, n_attn=0, gru_fwd=2, gru_bwd=5), 4)


if __name__ == "__main__":
    main()
