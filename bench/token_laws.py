#!/usr/bin/env python3
"""The law each implementation draws a token from, side by side (issue 52,
docs/tokens.md): PyTorch's reference (Hugging Face's warpers as
bench/torch_token_baselines.py writes them, in the logits' dtype and in
float32) against warpsim's exact law (warpsim.token_probabilities, the
definition the kernels equal), on rows where they can differ: normal logits,
tie-heavy bf16 rows (ties at the top-k and top-p thresholds), and rows of
tiny probabilities. Per row family and truncation: the kept sets' sizes, the
tokens kept by one and not the other, the total variation distance between
the laws and the largest difference of one token's probability. One JSON
object a line, to the file named (and stdout)."""
import json
import sys

import numpy as np
import torch

import warpsim
from torch_token_baselines import reference

MODES = [("temperature 0.7", 0.7, 0, 1.0, 0.0), ("top-k 50", 0.7, 50, 1.0, 0.0), ("top-p 0.9", 0.7, 0, 0.9, 0.0),
         ("min-p 0.05", 0.7, 0, 1.0, 0.05), ("all three", 0.7, 50, 0.9, 0.05), ("top-p 0.5, T 1", 1.0, 0, 0.5, 0.0)]


def families(dev):
    g = torch.Generator(device=dev)
    g.manual_seed(3)
    normal = torch.randn(16, 32768, device=dev, generator=g) * 3
    ties = (torch.round(torch.randn(16, 32768, device=dev, generator=g) * 2) / 2).to(torch.bfloat16)
    tiny = -25 - 15 * torch.rand(16, 131072, device=dev, generator=g)
    tiny[:, 0] = 0.0
    return [("normal fp32, K 32768", normal), ("ties bf16, K 32768", ties), ("tiny fp32, K 131072", tiny)]


def main():
    out = open(sys.argv[1], "w") if len(sys.argv) > 1 else None
    dev = torch.device("cuda")
    for fam, x in families(dev):
        host = x.float().cpu().numpy()
        for name, t, k, p, mp in MODES:
            ours = warpsim.token_probabilities(host, temperature=t, top_k=k, top_p=p, min_p=mp)
            for where, xx in (("in the logits' dtype", x), ("in float32", x.float())):
                if where == "in float32" and x.dtype == torch.float32:
                    continue
                ref = reference(xx, t, k, p, mp).double().cpu().numpy()
                kept_o, kept_r = ours > 0, ref > 0
                row = {"family": fam, "mode": name, "reference": where,
                       "kept_ours": float(kept_o.sum(1).mean()), "kept_reference": float(kept_r.sum(1).mean()),
                       "only_ours": int((kept_o & ~kept_r).sum()), "only_reference": int((kept_r & ~kept_o).sum()),
                       "rows_with_a_difference": int(((kept_o != kept_r).any(1)).sum()), "rows": int(x.shape[0]),
                       "tv_max": float(0.5 * np.abs(ours - ref).sum(1).max()), "max_abs_diff": float(np.abs(ours - ref).max()),
                       "mass_ours_cut_max": float(np.where(~kept_o, ref, 0).sum(1).max())}
                line = json.dumps(row)
                print(line, flush=True)
                if out:
                    out.write(line + "\n")


if __name__ == "__main__":
    main()
