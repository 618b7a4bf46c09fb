#!/usr/bin/python3
"""record_gradients.py OUT [options] - real gradients for `wiresum gen --from OUT` (docs/traces.md).

Data-parallel training of a small multi-layer perceptron (64 -> HIDDEN -> 10, ReLU) on
scikit-learn's digits (1797 8x8 images, shipped with python3-sklearn: nothing is downloaded) with
Debian's python3-torch. Each step draws a batch of BATCH samples and splits it into WORKERS equal
shards, one per worker; a worker's gradient of the mean cross-entropy over its shard, every
parameter flattened in the model's order, is written as OUT/w<W>-s<S>.f32 (binary32, big-endian,
as wiresum's sum files). The step then applies the mean of the workers' gradients (SGD), as an
all-reduce would. OUT/recording.txt says how the recording was made.

Options: --workers N (1..64, default 4), --steps S (default 2), --hidden H (default 16),
--batch B (a multiple of N, default 64), --lr R (default 0.1), --seed N (default 1).
Needs /usr/bin/python3 with python3-torch and python3-sklearn (not installed by scripts/deps.sh:
torch alone is 1 GB; make test uses the recording shipped in tests/data/grad-digits).
"""
import argparse
import os
import sys

try:
    import numpy as np
    import sklearn
    import torch
    from sklearn.datasets import load_digits
except ImportError as e:
    sys.exit("record_gradients.py: %s: install Debian's packages with\n"
             "  sudo apt-get install python3-torch python3-sklearn\n"
             "and run this script with /usr/bin/python3" % e)


def int_in(lo, hi):
    def parse(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not an integer" % s)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError("%d is not in %d..%d" % (v, lo, hi))
        return v
    return parse


def main():
    ap = argparse.ArgumentParser(prog="record_gradients.py",
                                 description="record per-worker gradients of a small network "
                                             "trained on scikit-learn's digits")
    ap.add_argument("out", help="directory to write w<W>-s<S>.f32 into (created if missing)")
    ap.add_argument("--workers", type=int_in(1, 64), default=4)
    ap.add_argument("--steps", type=int_in(1, 65535), default=2)
    ap.add_argument("--hidden", type=int_in(1, 4096), default=16)
    ap.add_argument("--batch", type=int_in(1, 1797), default=64)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--seed", type=int_in(0, 2**31 - 1), default=1)
    a = ap.parse_args()
    if a.batch % a.workers:
        ap.error("--batch %d is not a multiple of --workers %d" % (a.batch, a.workers))

    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    digits = load_digits()
    x = torch.tensor(digits.data / 16.0, dtype=torch.float32)
    y = torch.tensor(digits.target, dtype=torch.int64)
    model = torch.nn.Sequential(torch.nn.Linear(64, a.hidden), torch.nn.ReLU(),
                                torch.nn.Linear(a.hidden, 10))
    params = list(model.parameters())
    n = sum(p.numel() for p in params)
    gen = torch.Generator().manual_seed(a.seed)
    shard = a.batch // a.workers

    os.makedirs(a.out, exist_ok=True)
    for step in range(a.steps):
        idx = torch.randperm(x.shape[0], generator=gen)[:a.batch]
        mean = [torch.zeros_like(p) for p in params]
        for w in range(a.workers):
            part = idx[w * shard:(w + 1) * shard]
            model.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[part]), y[part])
            loss.backward()
            flat = torch.cat([p.grad.reshape(-1) for p in params])
            path = os.path.join(a.out, "w%d-s%d.f32" % (w, step))
            flat.detach().numpy().astype(">f4").tofile(path)
            for m, p in zip(mean, params):
                m += p.grad / a.workers
        with torch.no_grad():
            for m, p in zip(mean, params):
                p -= a.lr * m

    with open(os.path.join(a.out, "recording.txt"), "w") as f:
        f.write("recorded by scripts/record_gradients.py %s\n" % " ".join(sys.argv[1:]))
        f.write("model: 64 -> %d -> 10 MLP (ReLU), %d parameters = elements per tensor\n"
                % (a.hidden, n))
        f.write("data: scikit-learn %s digits, batch %d in %d shards of %d, SGD lr %g, seed %d\n"
                % (sklearn.__version__, a.batch, a.workers, shard, a.lr, a.seed))
        f.write("torch %s, numpy %s; files: w<worker>-s<step>.f32, binary32 big-endian\n"
                % (torch.__version__, np.__version__))
    print("record_gradients.py: %s: %d workers x %d steps of %d elements"
          % (a.out, a.workers, a.steps, n))


if __name__ == "__main__":
    main()
