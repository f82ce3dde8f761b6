#!/usr/bin/env python3
"""PyTorch's reference token sampling on bench/gpu_token_bench.cu's grid
(issue 52), written as Hugging Face transformers' logits processors write it
(TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper,
MinPLogitsWarper, in that order), then softmax and torch.multinomial: the
sort-based path a server falls back to. Median of 20 timed runs after 3
warm-ups, CUDA events (bench/torch_timing.py). Logits: normal, sd 3. One JSON
object a line. `--laws FILE.npz` instead writes, for small rows, the
probabilities this reference computes (for docs/tokens.md's comparison)."""
import argparse
import json

import torch

from torch_timing import median_ms


def reference(x, temperature, top_k=0, top_p=1.0, min_p=0.0):
    """Hugging Face's warpers on scores x (M, K), then the probabilities."""
    scores = x / temperature
    neg = -float("inf")
    if top_k > 0:
        k = min(top_k, scores.size(-1))
        kth = torch.topk(scores, k)[0][..., -1, None]
        scores = scores.masked_fill(scores < kth, neg)
    if top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(scores, descending=False)
        cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove_sorted = cumulative <= (1 - top_p)
        remove_sorted[..., -1:] = 0
        remove = remove_sorted.scatter(1, sorted_indices, remove_sorted)
        scores = scores.masked_fill(remove, neg)
    if min_p > 0.0:
        probs = torch.softmax(scores, dim=-1)
        top = probs.amax(dim=-1, keepdim=True)
        scores = scores.masked_fill(probs < min_p * top, neg)
    return torch.softmax(scores.float(), dim=-1)


MODES = [("temperature", 0, 1.0, 0.0), ("top-k 50", 50, 1.0, 0.0), ("top-p 0.9", 0, 0.9, 0.0),
         ("min-p 0.05", 0, 1.0, 0.05), ("all three", 50, 0.9, 0.05)]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--m", default="1,8,64,128,256,1024")
    ap.add_argument("--k", default="32768,131072,152064,262144")
    ap.add_argument("--dtype", default="fp32,bf16")
    args = ap.parse_args()
    dev = torch.device("cuda")
    print(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__}), flush=True)
    g = torch.Generator(device=dev)
    g.manual_seed(7)
    for dt in args.dtype.split(","):
        dtype = torch.float32 if dt == "fp32" else torch.bfloat16
        for k in (int(v) for v in args.k.split(",")):
            for m in (int(v) for v in args.m.split(",")):
                x = (torch.randn(m, k, device=dev, generator=g) * 3).to(dtype)
                for name, top_k, top_p, min_p in MODES:
                    def run():
                        p = reference(x, 0.7, top_k, top_p, min_p)
                        return torch.multinomial(p, 1)
                    try:
                        ms = median_ms(run, reps=20, warmup=3)
                        print(json.dumps({"what": "pytorch reference", "dtype": dt, "mode": name, "M": m, "K": k, "ms": round(ms, 4)}),
                              flush=True)
                    except RuntimeError as e:  # memory at the largest points
                        print(json.dumps({"what": "pytorch reference", "dtype": dt, "mode": name, "M": m, "K": k,
                                          "error": str(e)[:120]}), flush=True)
                        torch.cuda.empty_cache()
                del x
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
