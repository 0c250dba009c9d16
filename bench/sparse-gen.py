#!/usr/bin/env python3
"""Sparse high-dimensional LIBSVM data for the linear solvers (issue 9's 1-million-row set).

Each row has NNZ distinct features drawn uniformly from 1..DIM (with --zipf S: feature f with
probability proportional to f^-S, a text-like frequency law) with value 1/sqrt(NNZ) (unit
norm, like tf-idf rows); the label is the sign of w*'x for a fixed random w* ~ N(0, 1), flipped
with probability NOISE. With --classes K > 2: K such w*_k, the label (0 .. K-1) the k of the largest w*_k'x, replaced by
a uniformly drawn class with probability NOISE (a multi-class set for --multiclass multinomial). Deterministic given --seed.

usage: bench/sparse-gen.py -o FILE [--rows 1000000] [--dim 100000] [--nnz 20] [--noise 0.05] [--seed 1] [--row-seed S]
                           [--classes K] [--zipf S]
"""
import argparse
import math
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=100_000)
    ap.add_argument("--nnz", type=int, default=20)
    ap.add_argument("--noise", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--classes", type=int, default=2)
    ap.add_argument("--zipf", type=float, default=0.0,
                    help="draw feature f with probability proportional to f^-S (0: uniformly)")
    ap.add_argument("--row-seed", type=int, default=None,
                    help="seed of the rows only (w* stays that of --seed): a test set of the same problem")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    w = [rnd.gauss(0, 1) for _ in range(a.dim + 1)]
    ws = [w] + [[rnd.gauss(0, 1) for _ in range(a.dim + 1)] for _ in range(a.classes - 1)] if a.classes > 2 else None
    if a.row_seed is not None:
        rnd = random.Random(a.row_seed)
    cum = None
    if a.zipf > 0:
        cum, t = [], 0.0
        for f in range(1, a.dim + 1):
            t += f ** -a.zipf
            cum.append(t)

    def features():
        if cum is None:
            return sorted(rnd.sample(range(1, a.dim + 1), a.nnz))
        chosen = set()
        while len(chosen) < a.nnz:
            chosen.update(rnd.choices(range(1, a.dim + 1), cum_weights=cum, k=a.nnz - len(chosen)))
        return sorted(chosen)

    v = 1 / math.sqrt(a.nnz)
    val = "%.6g" % v
    with open(a.output, "w") as f:
        buf = []
        for _ in range(a.rows):
            idx = features()
            if ws is None:
                s = sum(w[i] for i in idx)
                y = 1 if s > 0 else -1
                if rnd.random() < a.noise:
                    y = -y
                label = "+1" if y > 0 else "-1"
            else:
                scores = [sum(wk[i] for i in idx) for wk in ws]
                y = max(range(a.classes), key=lambda k: scores[k])
                if rnd.random() < a.noise:
                    y = rnd.randrange(a.classes)
                label = str(y)
            buf.append(label + " " + " ".join("%d:%s" % (i, val) for i in idx))
            if len(buf) >= 10000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")


if __name__ == "__main__":
    main()
