#!/usr/bin/env python3
"""PyTorch baselines for the matrix workload, on the same sizes as
bench/gpu_matrix_bench.cu (M*K = 2^28): torch.multinomial, cumsum +
searchsorted, and Gumbel-max; median of 15 timed runs after warm-up, CUDA
events. Prints one JSON object per line."""
import json

import torch

from torch_timing import median_ms


def main():
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}), flush=True)
    n = 1 << 28
    for dtype, name in [(torch.float32, "fp32"), (torch.float64, "fp64")]:
        for k in [32, 128, 1024]:
            m = n // k
            w = torch.rand(m, k, device="cuda", dtype=dtype)
            def multinomial():
                return torch.multinomial(w, 1)
            def cumsum_search():
                c = w.cumsum(1)
                u = torch.rand(m, 1, device="cuda", dtype=dtype) * c[:, -1:]
                return torch.searchsorted(c, u)
            def gumbel():
                g = -torch.log(-torch.log(torch.rand_like(w)))
                return (w.log() + g).argmax(1)
            for label, fn in [("torch.multinomial", multinomial), ("cumsum+searchsorted", cumsum_search), ("gumbel-max", gumbel)]:
                try:
                    ms = median_ms(fn)
                except RuntimeError as e:  # e.g. out of memory: say so, do not invent a number
                    print(json.dumps({"dtype": name, "what": label, "K": k, "error": str(e)[:200]}), flush=True)
                    torch.cuda.empty_cache()
                    continue
                print(json.dumps({"dtype": name, "what": label, "K": k, "M": m, "ms": round(ms, 4)}), flush=True)
            del w
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
