#!/usr/bin/env python3
"""warpsim from Python on a GPU (docs/python.md, docs/perf/python.md).

  python_device.py validate OUT.json     validate on PyTorch, CuPy and JAX device arrays: time and
                                         peak host memory, 10^8 and 10^9 draws, K = 2 .. 2^20
  python_device.py multinomial OUT.json  warpsim.multinomial against torch.multinomial, the
                                         exponential race and cumsum + searchsorted on the rows
                                         grid, with the C++ API's time and the floor
  python_device.py thirdparty OUT.json WARPSIM [DRAWS] [--jax]
                                         docs/validate.md's third-party table from device arrays,
                                         each report's numbers against the command's on the same
                                         draws written to files

Each prints one JSON line per measurement (progress) and writes them all to OUT.json.
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import warpsim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/: torch_timing, third_party_draws

RESULTS = []
OUT = None


def emit(**record):
    """Prints the record and rewrites OUT with every record so far (a run cut short keeps them)."""
    RESULTS.append(record)
    print(json.dumps(record), flush=True)
    if OUT:
        with open(OUT, "w") as f:
            json.dump(RESULTS, f, indent=1)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def validate_bench():
    import torch

    dev = "cuda"
    emit(device=torch.cuda.get_device_name(), torch=torch.__version__, numpy=np.__version__)
    sizes = ((10**8, 2), (10**8, 1000), (10**8, 131072), (10**8, 1 << 20), (10**9, 2), (10**9, 1000), (10**9, 32768), (10**9, 131072), (10**9, 1 << 20))
    for n, k in sizes:
        gen = torch.Generator(device=dev).manual_seed(k)
        w = torch.rand(k, device=dev, generator=gen, dtype=torch.float64) + 0.01
        table = warpsim.AliasTable(w)
        draws = table.sample(n, seed=1).view(torch.int32)  # indices < 2^31: the same bits
        torch.cuda.synchronize()
        for fw in ("torch", "cupy", "jax"):
            if fw == "torch":
                x = draws
            elif fw == "cupy":
                try:
                    import cupy
                except ImportError:
                    continue
                x = cupy.from_dlpack(draws)
            else:
                if n > 10**8 and k > 2:
                    continue  # JAX once per size: it allocates its own pool
                try:
                    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
                    import jax.dlpack
                    x = jax.dlpack.from_dlpack(draws)
                except Exception as e:
                    emit(framework="jax", error=str(e)[:200])
                    continue
            before = peak_rss_mb()
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                r = warpsim.validate(x, w, progress=False)
                times.append(time.perf_counter() - t0)
            counted = [x for x in r.to_dict()["notes"] if x.startswith("the draws were counted on CUDA")]
            count_seconds = float(counted[0].split(" in ")[1].split(" s;")[0]) if counted else None
            emit(part="validate", framework=fw, draws=n, k=k, seconds=min(times), median=statistics.median(times), count_seconds=count_seconds,
                 draws_per_second=n / min(times), peak_rss_growth_mb=round(peak_rss_mb() - before, 1), peak_rss_mb=round(peak_rss_mb(), 1),
                 consistent=r.consistent, checks=[(c.name, c.outcome) for c in r.checks])
        del draws, table
        torch.cuda.empty_cache()


def timed(fn, reps):
    """Seconds: the median of `reps` runs between CUDA events (bench/torch_timing.py)."""
    from torch_timing import median_ms

    return median_ms(fn, reps=reps, warmup=1) / 1000


def multinomial_bench():
    import torch

    dev = "cuda"
    # The floor's bandwidth: a read of 4 GiB (a sum), the weights' traffic.
    big = torch.ones(1 << 30, device=dev)
    bw = (4 << 30) / timed(lambda: big.sum(), 10)
    del big
    emit(device=torch.cuda.get_device_name(), torch=torch.__version__, read_bandwidth_gbs=bw / 1e9)
    for m in (1, 16, 256, 4096):
        for k in (1024, 32768, 131072, 1 << 20):
            if m * k > (1 << 30):
                continue
            gen = torch.Generator(device=dev).manual_seed(m * k)
            w = torch.softmax(torch.randn(m, k, device=dev, generator=gen) * 3, -1)
            out = torch.empty(m, 1, dtype=torch.int32, device=dev)
            reps = 20 if m * k < (1 << 24) else 8
            total = w.sum(-1, keepdim=True)
            c = torch.cumsum(w, -1)
            methods = {
                "warpsim": lambda: warpsim.multinomial(w, 1, seed=1, out=out),
                "warpsim_nocheck": lambda: warpsim.multinomial(w, 1, seed=1, out=out, check=False),
                "torch.multinomial": lambda: torch.multinomial(w, 1, replacement=True),
                "exponential_race": lambda: (w / torch.empty_like(w).exponential_()).argmax(-1),
                "cumsum_searchsorted": lambda: torch.searchsorted(torch.cumsum(w, -1), torch.rand(m, 1, device=dev) * total),
            }
            row = {name: timed(fn, reps) for name, fn in methods.items()}
            wd = warpsim._arrays.describe(w, "weights").desc
            od = warpsim._arrays.describe(out, "out", stream=wd[4]).desc
            warpsim._warpsim._time_multinomial(wd, od, 1, 1, False, 2)
            row["cpp_api_nocheck"] = warpsim._warpsim._time_multinomial(wd, od, 1, 1, False, reps)
            row["cpp_api_check"] = warpsim._warpsim._time_multinomial(wd, od, 1, 1, True, reps)
            row["python_loop_nocheck"] = timed(lambda: [warpsim.multinomial(w, 1, seed=1, out=out, check=False) for _ in range(reps)], 1) / reps
            row["floor"] = m * k * 4 / bw
            best = min(("torch.multinomial", "exponential_race", "cumsum_searchsorted"), key=lambda n: row[n])
            emit(part="multinomial", m=m, k=k, seconds=row, best_torch=best, speedup_vs_best=row[best] / row["warpsim"],
                 speedup_vs_multinomial=row["torch.multinomial"] / row["warpsim"])
            del w, c, total, out
            torch.cuda.empty_cache()


def numbers(report_json):
    out = []
    for c in report_json["checks"]:
        t = c.get("test") or {}
        out.append([c["name"], c["outcome"], t.get("statistic"), t.get("p_value"), t.get("sample_size")])
    return out


def thirdparty(cli, n, use_jax):
    import third_party_draws as tp

    if use_jax:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        cases = tp.jax_cases(n)
    else:
        import torch
        torch.manual_seed(12)
        cases = tp.torch_cases(torch, n)
    with tempfile.TemporaryDirectory() as tmp:
        for name, weights, draw in cases:
            d = draw()
            t0 = time.perf_counter()
            r = warpsim.validate(d, weights, progress=False)
            seconds = time.perf_counter() - t0
            tp.save_npy(os.path.join(tmp, "w.npy"), tp.host(weights).astype("<f4"), "<f4")
            tp.save_npy(os.path.join(tmp, "d.npy"), tp.host(d).astype("<i4"), "<i4")
            run = subprocess.run([cli, "validate", "--weights", os.path.join(tmp, "w.npy"), "--draws", os.path.join(tmp, "d.npy"), "--format", "json",
                                  "--progress", "never"], capture_output=True, text=True)
            from_file = json.loads(run.stdout)
            from_python = json.loads(r.to_json())
            emit(part="thirdparty", case=name, draws=int(from_python["checks"][0]["detail"].split()[0]), python_seconds=seconds,
                 consistent=r.consistent, file_exit=run.returncode, same_numbers=numbers(from_python) == numbers(from_file),
                 failed=[(c.name, c.p) for c in r.failed()],
                 rules_out={c.name: c.rules_out for c in r.checks if c.rules_out and any(v for v in c.rules_out.values())})


def main():
    global OUT
    what, out = sys.argv[1], sys.argv[2]
    OUT = out
    try:
        if what == "validate":
            validate_bench()
        elif what == "multinomial":
            multinomial_bench()
        elif what == "thirdparty":
            args = [a for a in sys.argv[3:] if not a.startswith("--")]
            thirdparty(args[0], int(float(args[1])) if len(args) > 1 else 10**8, "--jax" in sys.argv)
        else:
            raise SystemExit(__doc__)
    finally:
        with open(out, "w") as f:
            json.dump(RESULTS, f, indent=1)


if __name__ == "__main__":
    main()
