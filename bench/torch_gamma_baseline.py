"""PyTorch's gamma variates as the baseline of bench_gpu_rejection's gamma
rows (torch._standard_gamma, what torch.distributions.Gamma samples with):
10^8 draws of shape 0.3, 2.5 and 30 (fp32), and the theta and phi half of
an LDA Gibbs iteration at the seed's Sec. 7 size (43,556 documents, 37,286
words, K = 1,024, fp32): gammas of alpha + n and beta + n, phi's columns
normalised. Median of 10 after 2 warm-ups, CUDA events. JSON lines."""
import json
import sys

import torch

from torch_timing import median_ms


def main():
    dev = torch.device("cuda")
    print(json.dumps({"what": "device", "name": torch.cuda.get_device_name(0), "torch": torch.__version__}), flush=True)
    n = 100_000_000
    grid = "--grid" in sys.argv[1:]  # shapes 0.01 to 10^4, fp32 and fp64
    shapes = (0.01, 0.1, 0.3, 1.0, 2.5, 30.0, 1e4) if grid else (0.3, 2.5, 30.0)
    for shape in shapes:
        for dtype, name in ((torch.float32, "f32"), (torch.float64, "f64")) if grid else ((torch.float32, "f32"),):
            s = torch.full((n,), shape, device=dev, dtype=dtype)
            ms = median_ms(lambda: torch._standard_gamma(s), reps=10, warmup=2)
            print(json.dumps({"what": "torch gamma", "method": "torch._standard_gamma", "dtype": name, "shape": shape, "draws": n,
                              "ms": round(ms, 4), "gsamples_per_s": round(n / (ms * 1e6), 2)}), flush=True)
            del s
    m, v, k = 43556, 37286, 1024
    gen = torch.Generator(device=dev).manual_seed(1)
    n_theta = torch.randint(0, 3, (m, k), device=dev, generator=gen).float()  # counts of about 70 tokens a document over 1,024 topics
    n_phi = torch.randint(0, 3, (v, k), device=dev, generator=gen).float()

    def theta_phi():
        theta = torch._standard_gamma(n_theta + 0.1)
        phi = torch._standard_gamma(n_phi + 0.01)
        return theta, phi / phi.sum(dim=0, keepdim=True)

    ms = median_ms(theta_phi, reps=10, warmup=2)
    print(json.dumps({"what": "torch lda theta phi", "documents": m, "vocabulary": v, "k": k, "dtype": "f32", "gammas": (m + v) * k,
                      "ms": round(ms, 4)}), flush=True)


if __name__ == "__main__":
    main()
