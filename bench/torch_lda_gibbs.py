"""One uncollapsed Gibbs iteration of seed 000's LDA written the way a
PyTorch user writes it, the baseline of bench_gpu_rejection's "lda gibbs
iteration" rows: the same corpus (bench_gpu_rejection --dump-corpus DIR), K,
priors and dtype, timed the same way (median of 10 iterations after 2
warm-ups, CUDA events; each iteration's z drawn from the theta and phi of the
one before, as a chain runs).

    z_t   ~ Categorical(theta[d_t, :] * phi[w_t, :])   batched gather, then
          torch.multinomial(p, 1) or the exponential race argmax(p / E)
    n_dk, n_wk counted by index_put_(accumulate=True)
    theta ~ Dirichlet(alpha + n_d.)   phi[:, k] ~ Dirichlet(beta + n_.k)
          (torch.distributions.Dirichlet: gammas, normalised)

The whole corpus is one batch (3.07 million tokens x K = 1,024: the
probabilities take 12.6 GB in fp32, the gathers as much again each; an H200
holds them), PyTorch's fastest form; --chunk N draws N tokens at a time.
JSON lines."""
import argparse
import json
import os

import numpy as np
import torch

from torch_timing import median_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", help="the folder bench_gpu_rejection --dump-corpus wrote")
    ap.add_argument("--k", type=int, default=1024)
    ap.add_argument("--chunk", type=int, default=0, help="tokens a batch (0: all)")
    ap.add_argument("--dtypes", default="f32,f64")
    args = ap.parse_args()
    dev = torch.device("cuda")
    print(json.dumps({"what": "device", "name": torch.cuda.get_device_name(0), "torch": torch.__version__}), flush=True)
    offsets = np.fromfile(os.path.join(args.corpus, "offsets.i32"), dtype=np.int32)
    words = torch.from_numpy(np.fromfile(os.path.join(args.corpus, "words.i32"), dtype=np.int32).astype(np.int64)).to(dev)
    m, n = len(offsets) - 1, words.numel()
    v = int(words.max().item()) + 1
    lengths = torch.from_numpy(np.diff(offsets).astype(np.int64)).to(dev)
    doc = torch.repeat_interleave(torch.arange(m, device=dev), lengths)
    k, alpha, beta = args.k, 0.1, 0.01
    chunk = args.chunk or n
    for dtype_name in args.dtypes.split(","):
        dtype = {"f32": torch.float32, "f64": torch.float64}[dtype_name]
        gen = torch.Generator(device=dev).manual_seed(1)
        state = {"theta": torch.rand(m, k, device=dev, dtype=dtype, generator=gen),
                 "phi": torch.rand(v, k, device=dev, dtype=dtype, generator=gen)}
        for method in ("multinomial", "exponential race"):
            def draw_z():
                theta, phi = state["theta"], state["phi"]
                parts = []
                for a in range(0, n, chunk):
                    p = theta[doc[a:a + chunk]] * phi[words[a:a + chunk]]
                    if method == "multinomial":
                        parts.append(torch.multinomial(p, 1).squeeze(1))
                    else:
                        parts.append((p / torch.empty_like(p).exponential_()).argmax(dim=1))
                    del p
                return parts[0] if len(parts) == 1 else torch.cat(parts)

            def theta_phi(z):
                ones = torch.ones(n, device=dev, dtype=dtype)
                n_dk = torch.zeros(m, k, device=dev, dtype=dtype).index_put_((doc, z), ones, accumulate=True)
                n_wk = torch.zeros(v, k, device=dev, dtype=dtype).index_put_((words, z), ones, accumulate=True)
                state["theta"] = torch.distributions.Dirichlet(n_dk + alpha).sample()
                state["phi"] = torch.distributions.Dirichlet((n_wk + beta).t()).sample().t()

            z_ms = median_ms(draw_z, reps=10, warmup=2)
            z = draw_z()
            tp_ms = median_ms(lambda: theta_phi(z), reps=10, warmup=2)
            it_ms = median_ms(lambda: theta_phi(draw_z()), reps=10, warmup=2)
            print(json.dumps({"what": "torch lda gibbs iteration", "z_draw": method, "documents": m, "vocabulary": v, "tokens": n, "k": k,
                              "dtype": dtype_name, "alpha": alpha, "beta": beta, "chunk": chunk, "z_ms": round(z_ms, 4),
                              "theta_phi_ms": round(tp_ms, 4), "iteration_ms": round(it_ms, 4),
                              "peak_gb": round(torch.cuda.max_memory_allocated() / 1e9, 1)}), flush=True)
            torch.cuda.reset_peak_memory_stats()
        del state
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
