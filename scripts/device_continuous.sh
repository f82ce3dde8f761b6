#!/usr/bin/env bash
# One device call: PyTorch's and JAX's samplers of continuous laws judged
# from files by `warpsim validate --values --law` (docs/validate.md, way in
# 4). Each sampler writes 10^6 values to a float32 .npy (bf16 outputs
# widened exactly, judged with --rounded-to bf16); warpsim (built here,
# carried as .device-out/warpsim-gpu.xz) judges them at alpha 0.001.
# Then warpsim's own gamma kernel (--builtin gamma --on gpu). Logs under
# $OUT/continuous/: one report a sampler, and summary.txt.
set -uo pipefail
out=${OUT:-/tmp/out}/continuous
mkdir -p "$out"
xz -dc .device-out/warpsim-gpu.xz > /tmp/warpsim && chmod +x /tmp/warpsim || exit 2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt" 2>&1
python3 - "$out" <<'PY' 2>&1 | tee "$out/samplers.log"
import sys, numpy as np, torch
out = sys.argv[1]
n = 1_000_000
torch.manual_seed(1)
d = "cuda"
cases = {
    "torch-normal": (lambda: torch.randn(n, device=d), "normal:0,1"),
    "torch-normal-mean-std": (lambda: torch.normal(2.0, 3.0, (n,), device=d), "normal:2,3"),
    "torch-exponential": (lambda: torch.empty(n, device=d).exponential_(2.0), "exponential:2"),
    "torch-uniform": (lambda: torch.rand(n, device=d), "uniform:0,1"),
    "torch-gamma-0.5": (lambda: torch._standard_gamma(torch.full((n,), 0.5, device=d)), "gamma:0.5,1"),
    "torch-gamma-5": (lambda: torch._standard_gamma(torch.full((n,), 5.0, device=d)), "gamma:5,1"),
    "torch-gamma-0.01": (lambda: torch._standard_gamma(torch.full((n,), 0.01, device=d)), "gamma:0.01,1"),
    # the same sampler judged with its rule named: draws below 2^-126 raised to it
    "torch-gamma-0.01-clamp": (lambda: torch._standard_gamma(torch.full((n,), 0.01, device=d)), "gamma:0.01,1 --clamp-low min-normal"),
    "torch-beta-0.5": (lambda: torch.distributions.Beta(torch.full((n,), 0.5, device=d), torch.full((n,), 0.5, device=d)).sample(), "beta:0.5,0.5"),
    # the same with its rule named: draws above 1 - 2^-23 lowered to it
    "torch-beta-0.5-clamp": (lambda: torch.distributions.Beta(torch.full((n,), 0.5, device=d), torch.full((n,), 0.5, device=d)).sample(), "beta:0.5,0.5 --clamp-high 0.99999988079071044921875"),
    "torch-normal-bf16": (lambda: torch.randn(n, device=d, dtype=torch.bfloat16), "normal:0,1 --rounded-to bf16"),
    "torch-exponential-bf16": (lambda: torch.empty(n, device=d, dtype=torch.bfloat16).exponential_(1.0), "exponential:1 --rounded-to bf16"),
    "torch-uniform-bf16": (lambda: torch.rand(n, device=d, dtype=torch.bfloat16), "uniform:0,1 --rounded-to bf16"),
    "torch-normal-fp16": (lambda: torch.randn(n, device=d, dtype=torch.float16), "normal:0,1 --rounded-to f16"),
}
try:
    import jax, jax.numpy as jnp
    k = jax.random.PRNGKey(1)
    ks = jax.random.split(k, 8)
    cases.update({
        "jax-normal": (lambda: np.asarray(jax.random.normal(ks[0], (n,), jnp.float32)), "normal:0,1"),
        "jax-exponential": (lambda: np.asarray(jax.random.exponential(ks[1], (n,), jnp.float32)), "exponential:1"),
        "jax-gamma-0.5": (lambda: np.asarray(jax.random.gamma(ks[2], 0.5, (n,), jnp.float32)), "gamma:0.5,1"),
        "jax-gamma-0.01": (lambda: np.asarray(jax.random.gamma(ks[3], 0.01, (n,), jnp.float32)), "gamma:0.01,1"),
        "jax-beta-0.5": (lambda: np.asarray(jax.random.beta(ks[4], 0.5, 0.5, (n,), jnp.float32)), "beta:0.5,0.5"),
        "jax-uniform": (lambda: np.asarray(jax.random.uniform(ks[5], (n,), jnp.float32)), "uniform:0,1"),
        "jax-normal-bf16": (lambda: np.asarray(jax.random.normal(ks[6], (n,), jnp.bfloat16).astype(jnp.float32)), "normal:0,1 --rounded-to bf16"),
        "jax-uniform-bf16": (lambda: np.asarray(jax.random.uniform(ks[7], (n,), jnp.bfloat16).astype(jnp.float32)), "uniform:0,1 --rounded-to bf16"),
    })
    print("jax", jax.__version__, jax.devices())
except Exception as e:
    print("jax: not run:", e)
print("torch", torch.__version__)
with open(f"{out}/laws.txt", "w") as f:
    for name, (make, law) in cases.items():
        x = make()
        x = x.float().cpu().numpy() if hasattr(x, "cpu") else np.asarray(x, dtype=np.float32)
        np.save(f"/tmp/{name}.npy", x.astype(np.float32))
        f.write(f"{name} {law}\n")
        print(name, law, x.dtype, x.shape, "min", float(x.min()), "max", float(x.max()))
PY
while read -r name law extra; do
  # shellcheck disable=SC2086  # (extra: options, split on purpose)
  /tmp/warpsim validate --values "/tmp/$name.npy" --law "$law" $extra > "$out/$name.txt" 2>&1
  rc=$?
  # shellcheck disable=SC2086
  /tmp/warpsim validate --values "/tmp/$name.npy" --law "$law" $extra --format json > "$out/$name.json" 2>/dev/null
  echo "$name $law $extra rc=$rc $(grep -E '^verdict' "$out/$name.txt" | cut -c1-60)" | tee -a "$out/summary.txt"
done < "$out/laws.txt"
# warpsim's own gamma kernel (--builtin gamma --on gpu), fp64 and fp32, from
# shape 0.01 to 100: 4 x 10^6 values each.
for dt in f64 f32; do
  for shape in 0.01 0.5 1 5 100; do
    name=builtin-gamma-$dt-$shape
    /tmp/warpsim validate --builtin gamma --on gpu --dtype $dt --law "gamma:$shape,1" --draws-per-law 4000000 > "$out/$name.txt" 2>&1
    rc=$?
    echo "$name gamma:$shape,1 rc=$rc $(grep -E '^verdict' "$out/$name.txt" | cut -c1-60)" | tee -a "$out/summary.txt"
  done
done
