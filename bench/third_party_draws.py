#!/usr/bin/env python3
"""Draws from third-party samplers, written as files for `warpsim validate`
(docs/validate.md, "Third-party samplers"), on the GPU, in .npy files
NumPy-free (the .npy header written here).

Laws:
  power    1,000 weights of a shuffled power law, 2 of them 0 (fp32)
  tail     1,000 heavy categories and 99,000 of probability 1e-8 each
           (the tail holds 1e-3 of the mass), DRAWS / 100 draws: what a
           vocabulary's long tail looks like to a Gumbel sampler whose noise
           is capped
  vocab    32,768 logits ~ N(0, 3^2), softmax in fp32
  vocab128k, 131,072 such logits with 10^5 draws: under one expected draw a
           category (where validate once rejected correct samplers)
  batch    1,024 rows x 32,768 (next-token sampling), 1,000 draws a row

Samplers: torch.multinomial; the exponential race (w / Exp(1)).argmax();
Gumbel-max argmax(log w + G) with G from fp32 and from fp16 uniforms;
cumsum + searchsorted; torch.multinomial on the probabilities rounded to
bf16 (judged against the fp32 ones); a wrong one, (w * U).argmax() (the
"multiply by a uniform" mistake); and, with --jax, jax.random.categorical in
its "low" and "high" modes (run apart: JAX and PyTorch share the GPU badly).

Usage: third_party_draws.py OUTDIR [DRAWS] [--jax]   (DRAWS for the power law, default 10^8)
Writes OUTDIR/<case>/{weights,draws}.npy and prints one JSON line per case."""
import json
import os
import struct
import sys
import time


def save_npy(path, array, descr):
    shape = "(" + ", ".join(str(s) for s in array.shape) + ("," if len(array.shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(array.tobytes())


def laws(torch):
    gen = torch.Generator().manual_seed(12)
    k = 1000
    w = 1.0 / torch.arange(1, k + 1, dtype=torch.float64)
    w = w[torch.randperm(k, generator=gen)]
    w[torch.randperm(k, generator=gen)[:2]] = 0
    power = (w / w.sum()).float()
    tail = torch.cat([torch.full((1000,), 0.999 / 1000, dtype=torch.float64), torch.full((99000,), 1e-3 / 99000, dtype=torch.float64)])
    tail = tail[torch.randperm(tail.numel(), generator=gen)].float()
    vocab = torch.softmax(torch.randn(32768, generator=gen, dtype=torch.float64) * 3, 0).float()
    vocab128k = torch.softmax(torch.randn(131072, generator=gen, dtype=torch.float64) * 3, 0).float()
    batch = torch.softmax(torch.randn(1024, 32768, generator=gen) * 3, 1)
    return {"power": power, "tail": tail, "vocab": vocab, "vocab128k": vocab128k, "batch": batch}


def torch_cases(torch, n):
    dev = "cuda"
    law = {name: p.to(dev) for name, p in laws(torch).items()}

    def chunked(total, chunk, fn):
        return torch.cat([fn(min(chunk, total - first)) for first in range(0, total, chunk)])

    def noise_chunk(p):  # draws a chunk of the (m x K) noise samplers so that a chunk holds 2^28 values
        return max(1, (1 << 28) // p.numel())

    def multinomial(p):
        return lambda m: torch.multinomial(p, m, replacement=True)

    def race(p):
        return lambda m: (p / torch.empty(m, p.numel(), device=dev).exponential_()).argmax(1)

    def gumbel(p, dtype):
        logp = p.log().to(dtype)
        def draw(m):
            u = torch.rand(m, p.numel(), device=dev, dtype=dtype)
            return (logp - (-u.log()).log()).argmax(1)
        return draw

    def cumsum_search(p):
        c = torch.cumsum(p, 0)
        return lambda m: torch.searchsorted(c, torch.rand(m, device=dev) * c[-1], right=True).clamp_(max=p.numel() - 1)

    def wrong_product(p):
        return lambda m: (p * torch.rand(m, p.numel(), device=dev)).argmax(1)

    power, tail = law["power"], law["tail"]
    bf16 = power.bfloat16().float()
    cases = [
        ("power_multinomial", power, lambda: chunked(n, 1 << 24, multinomial(power))),
        ("power_exponential_race", power, lambda: chunked(n, noise_chunk(power), race(power))),
        ("power_gumbel_fp32", power, lambda: chunked(n, noise_chunk(power), gumbel(power, torch.float32))),
        ("power_gumbel_fp16", power, lambda: chunked(n, noise_chunk(power), gumbel(power, torch.float16))),
        ("power_cumsum_searchsorted", power, lambda: chunked(n, 1 << 24, cumsum_search(power))),
        ("power_multinomial_bf16_probabilities", power, lambda: chunked(n, 1 << 24, multinomial(bf16))),
        ("power_wrong_uniform_product", power, lambda: chunked(n // 10, noise_chunk(power), wrong_product(power))),
        ("tail_multinomial", tail, lambda: chunked(n // 100, 1 << 24, multinomial(tail))),
        ("tail_exponential_race", tail, lambda: chunked(n // 100, noise_chunk(tail), race(tail))),
        ("tail_gumbel_fp32", tail, lambda: chunked(n // 100, noise_chunk(tail), gumbel(tail, torch.float32))),
        ("vocab_multinomial", law["vocab"], lambda: chunked(n // 10, 1 << 24, multinomial(law["vocab"]))),
        ("vocab128k_multinomial_1e5", law["vocab128k"], lambda: multinomial(law["vocab128k"])(100000)),
        ("batch1024x32k_multinomial", law["batch"], lambda: torch.multinomial(law["batch"], 1000, replacement=True)),
    ]
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}), flush=True)
    for name, weights, draw in cases:
        yield name, weights, lambda draw=draw: (draw(), torch.cuda.synchronize())[0].to(torch.int32)


def jax_cases(n):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    import torch  # only for the laws (the same seeds)
    law = {name: p.numpy() for name, p in laws(torch).items() if name in ("power", "tail")}
    print(json.dumps({"jax": jax.__version__, "device": str(jax.devices()[0])}), flush=True)
    for lname, total in (("power", n), ("tail", n // 100)):
        p = law[lname]
        logits = jnp.log(jnp.asarray(p))
        for mode in ("low", "high"):
            chunk = max(1, (1 << 28) // p.size)
            draw = jax.jit(lambda key, mode=mode, chunk=chunk: jax.random.categorical(key, logits, shape=(chunk,), mode=mode))

            def run(total=total, chunk=chunk, draw=draw):
                keys = jax.random.split(jax.random.PRNGKey(12), (total + chunk - 1) // chunk)
                out = jnp.concatenate([draw(keys[i]) for i in range(len(keys))])[:total]
                return out.astype(jnp.int32).block_until_ready()
            yield f"{lname}_jax_categorical_{mode}", p, run


def host(x):
    """A NumPy copy of a PyTorch, JAX or NumPy array."""
    import numpy as np
    if hasattr(x, "cpu"):
        return x.cpu().numpy()
    return np.asarray(x)


def main():
    outdir = sys.argv[1]
    args = [a for a in sys.argv[2:] if not a.startswith("--")]
    n = int(float(args[0])) if args else 10**8
    if "--jax" in sys.argv:
        cases = jax_cases(n)
    else:
        import torch
        torch.manual_seed(12)
        cases = torch_cases(torch, n)
    for name, weights, draw in cases:
        t0 = time.time()
        d = host(draw())
        seconds = time.time() - t0
        weights = host(weights)
        os.makedirs(os.path.join(outdir, name), exist_ok=True)
        save_npy(os.path.join(outdir, name, "weights.npy"), weights.astype("<f4"), "<f4")
        save_npy(os.path.join(outdir, name, "draws.npy"), d.astype("<i4"), "<i4")
        print(json.dumps({"case": name, "weights": list(weights.shape), "draws": int(d.size), "draw_seconds": round(seconds, 3)}), flush=True)


if __name__ == "__main__":
    main()
