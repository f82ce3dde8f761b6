#!/usr/bin/env python3
"""PyTorch's categorical draws on the (M, K) grid of bench/gpu_rows_bench.cu
(issue 16): torch.multinomial, the exponential race ((w / Exp(1)).argmax),
cumsum + searchsorted, and Gumbel-max, one draw a row, and S draws a row
where the method has them (torch.multinomial with replacement, cumsum +
searchsorted with S uniforms). Median of 15 timed runs after warm-up, CUDA
events (bench/torch_timing.py). One JSON object a line; a method that cannot
run at a point (torch.multinomial past 2^24 categories, memory) says why."""
import argparse
import json

import torch

from torch_timing import median_ms

GRID = [(1, 131072, 1), (64, 131072, 1), (256, 131072, 1), (1024, 131072, 1), (4096, 32768, 1),
        (32, 1048576, 1), (1, 16777216, 1), (1, 4096, 1), (64, 4096, 1), (1, 131072, 64),
        (256, 131072, 64), (1024, 32768, 16), (1 << 23, 32, 1), (1 << 21, 128, 1), (1 << 20, 256, 1),
        (1 << 19, 512, 1), (1 << 18, 1024, 1), (1 << 16, 4096, 1), (1 << 26, 4, 1), (1 << 24, 16, 1),
        (1 << 22, 64, 1), (1 << 20, 256, 8), (1 << 18, 1000, 1)]
GRID += [(m, k, 1) for m in (1, 64, 1024) for k in (4096, 32768, 131072, 1048576) if (m, k, 1) not in GRID]


def methods(w, s):
    m = w.shape[0]

    def multinomial():
        return torch.multinomial(w, s, replacement=True)

    def cumsum_search():
        c = w.cumsum(1)
        u = torch.rand(m, s, device=w.device, dtype=w.dtype) * c[:, -1:]
        return torch.searchsorted(c, u)

    def exponential_race():
        return (w / torch.empty_like(w).exponential_()).argmax(-1)

    def gumbel():
        g = -torch.log(-torch.log(torch.rand_like(w)))
        return (w.log() + g).argmax(-1)

    out = [("torch.multinomial", multinomial), ("cumsum+searchsorted", cumsum_search)]
    if s == 1:
        out += [("exponential race", exponential_race), ("gumbel-max", gumbel)]
    return out


def point(text):
    m, k, s = (int(x) for x in text.split(":"))
    if min(m, k, s) < 1:
        raise argparse.ArgumentTypeError(f"M:K:S with each >= 1, not {text}")
    return m, k, s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--point", type=point, action="append", help="only these points, M:K:S (repeatable)")
    grid = ap.parse_args().point or GRID
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}), flush=True)
    for dtype, name in [(torch.float32, "fp32"), (torch.float64, "fp64")]:
        for m, k, s in grid:
            w = torch.rand(m, k, device="cuda", dtype=dtype)
            for label, fn in methods(w, s):
                try:
                    ms = median_ms(fn)
                except RuntimeError as e:  # say why, never invent a number
                    print(json.dumps({"dtype": name, "what": label, "M": m, "K": k, "S": s, "error": str(e)[:160]}), flush=True)
                    torch.cuda.empty_cache()
                    continue
                print(json.dumps({"dtype": name, "what": label, "M": m, "K": k, "S": s, "ms": round(ms, 4)}), flush=True)
            del w
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
