#!/usr/bin/env python3
"""Draws from third-party samplers, written as files for `warpsim validate`
(issue 12's evidence): torch.multinomial, the exponential race
(w / Exp(1)).argmax(), cumsum + searchsorted, and a deliberately wrong
negative control, (w * U).argmax() (the "multiply by a uniform" mistake),
on the GPU, in .npy files NumPy-free (the .npy header written here).

Usage: third_party_draws.py OUTDIR [DRAWS]   (DRAWS per one-distribution set, default 10^8)
Writes OUTDIR/<case>/{weights,draws}.npy and prints one JSON line per case."""
import json
import os
import struct
import sys
import time

import torch


def save_npy(path, t):
    t = t.contiguous().cpu()
    descr = {torch.float32: "<f4", torch.float64: "<f8", torch.int32: "<i4", torch.int64: "<i8"}[t.dtype]
    shape = "(" + ", ".join(str(s) for s in t.shape) + ("," if t.dim() == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(t.numpy().tobytes())


def power_law(k, zeros, gen):
    w = 1.0 / torch.arange(1, k + 1, dtype=torch.float64)
    w = w[torch.randperm(k, generator=gen)]
    w[torch.randperm(k, generator=gen)[:zeros]] = 0
    return w.float()


def chunked(n, chunk, fn):
    out = []
    for first in range(0, n, chunk):
        out.append(fn(min(chunk, n - first)))
    return torch.cat(out)


def main():
    outdir = sys.argv[1]
    n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10**8
    gen = torch.Generator().manual_seed(12)
    torch.manual_seed(12)
    dev = "cuda"
    cases = []
    # One distribution: 1,000 weights of a shuffled power law, 2 of them 0.
    w = power_law(1000, 2, gen).to(dev)
    p = w / w.sum()
    cases.append(("multinomial_k1000", w, lambda: chunked(n, 1 << 24, lambda m: torch.multinomial(p, m, replacement=True))))
    cases.append(("exponential_race_k1000", w, lambda: chunked(n, 1 << 16, lambda m: (w / torch.empty(m, w.numel(), device=dev).exponential_()).argmax(1))))
    def cumsum_search(m):
        c = torch.cumsum(w, 0)
        u = torch.rand(m, device=dev) * c[-1]
        return torch.searchsorted(c, u, right=True).clamp_(max=w.numel() - 1)
    cases.append(("cumsum_searchsorted_k1000", w, lambda: chunked(n, 1 << 24, cumsum_search)))
    cases.append(("wrong_uniform_product_k1000", w, lambda: chunked(n // 10, 1 << 16, lambda m: (w * torch.rand(m, w.numel(), device=dev)).argmax(1))))
    # A vocabulary: 32,768 logits ~ N(0, 3^2), softmax in fp32; 10^7 draws.
    logits = torch.randn(32768, generator=gen, dtype=torch.float64) * 3
    v = torch.softmax(logits, 0).float().to(dev)
    cases.append(("multinomial_vocab32k", v, lambda: chunked(n // 10, 1 << 24, lambda m: torch.multinomial(v, m, replacement=True))))
    # A batch of rows (next-token sampling): 1,024 x 32,768, 1,000 draws a row.
    rows = torch.softmax(torch.randn(1024, 32768, generator=gen) * 3, 1).to(dev)
    cases.append(("multinomial_batch1024x32k", rows, lambda: torch.multinomial(rows, 1000, replacement=True)))
    def race_rows():
        out = []
        for first in range(0, rows.shape[0], 8):
            r = rows[first:first + 8]
            out.append((r[:, None, :] / torch.empty(r.shape[0], 1000, r.shape[1], device=dev).exponential_()).argmax(-1))
        return torch.cat(out)
    cases.append(("exponential_race_batch1024x32k", rows, race_rows))
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}), flush=True)
    for name, weights, draw in cases:
        t0 = time.time()
        d = draw()
        torch.cuda.synchronize()
        seconds = time.time() - t0
        os.makedirs(os.path.join(outdir, name), exist_ok=True)
        save_npy(os.path.join(outdir, name, "weights.npy"), weights)
        save_npy(os.path.join(outdir, name, "draws.npy"), d.to(torch.int64))
        print(json.dumps({"case": name, "weights": list(weights.shape), "draws": d.numel(), "draw_seconds": round(seconds, 3)}), flush=True)


if __name__ == "__main__":
    main()
