#!/usr/bin/env python3
"""PyTorch baselines for one distribution of 10^6 / 10^7 / 10^8 items (the
sizes of bench/gpu_alias_bench.cu; a shuffled power law of exponent 1,
fp32): preparing it (cumsum) and drawing 10^9 indices, stored, by cumsum +
searchsorted and by torch.multinomial (which refuses more than 2^24
categories: said, not invented). Draws are made in chunks of 10^8 (int64
outputs); a chunk is timed (median of 5 after warm-up, CUDA events) and the
time scaled by 10. One JSON object per line."""
import json

import torch

from torch_timing import median_ms

DRAWS = 10**9
CHUNK = 10**8


def power_law(n):
    i = torch.arange(n, device="cuda", dtype=torch.int64)
    w = torch.empty(n, device="cuda", dtype=torch.float32)
    w[(i * 7919) % n] = 1.0 / (i + 1).to(torch.float32)
    return w


def main():
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}), flush=True)
    for n in [10**6, 10**7, 10**8]:
        w = power_law(n)
        ms = median_ms(lambda: w.cumsum(0), reps=5, warmup=2)
        print(json.dumps({"what": "cumsum (preparation)", "n": n, "ms": round(ms, 4)}), flush=True)
        c = w.cumsum(0)
        total = c[-1]

        def search():
            u = torch.rand(CHUNK, device="cuda", dtype=torch.float32) * total
            return torch.searchsorted(c, u)

        def multinomial():
            return torch.multinomial(w, CHUNK, replacement=True)

        for label, fn in [("cumsum+searchsorted", search), ("torch.multinomial", multinomial)]:
            try:
                ms = median_ms(fn, reps=5, warmup=2) * (DRAWS // CHUNK)
            except RuntimeError as e:
                print(json.dumps({"what": label, "n": n, "error": str(e)[:200]}), flush=True)
                torch.cuda.empty_cache()
                continue
            print(json.dumps({"what": label, "n": n, "draws": DRAWS, "stored": "int64", "ms": round(ms, 3),
                              "gsamples_per_s": round(DRAWS / (ms * 1e6), 2)}), flush=True)
        del w, c
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
