#!/usr/bin/env python3
"""Primal objective of a LIBLINEAR model on LIBSVM data: 1/2|w|^2 + C sum loss(y w'x),
loss = max(0, 1 - m) (hinge, -s 3), its square (-s 1, -s 2) or log(1 + exp(-m)) (logistic, -s 0); l1-logistic (-s 6) and
l1-squared-hinge (-s 5):
|w|_1 + C sum log(1 + exp(-m)).
usage: linear-objective.py DATA MODEL C hinge|squared-hinge|logistic|l1-logistic|l1-squared-hinge"""
import math
import sys


def main():
    data, model, c, loss = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    w = []
    labels = None
    bias = -1
    with open(model) as f:
        inw = False
        for line in f:
            if line.startswith("label"):
                labels = line.split()[1:]
            elif line.startswith("bias"):
                bias = float(line.split()[1])
            elif line.strip() == "w":
                inw = True
            elif inw and line.strip():
                w.append(float(line.split()[0]))
    first = float(labels[0])
    obj = sum(abs(v) for v in w) if loss.startswith("l1-") else 0.5 * sum(v * v for v in w)
    with open(data) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            y = 1 if float(t[0]) == first else -1
            m = 0.0
            for tok in t[1:]:
                i, v = tok.split(":")
                i = int(i)
                if i <= len(w):
                    m += w[i - 1] * float(v)
            if loss in ("logistic", "l1-logistic"):
                t = -y * m
                obj += c * (t + math.log1p(math.exp(-t)) if t > 0 else math.log1p(math.exp(t)))
                continue
            xi = 1 - y * m
            if xi > 0:
                obj += c * (xi if loss == "hinge" else xi * xi)
    print("%.10g" % obj)


if __name__ == "__main__":
    main()
