#!/usr/bin/env python3
"""docs/perf/lda.md's iteration and gamma tables from a run of
scripts/device_lda_perf.sh: bench_gamma_grid.jsonl, torch_gamma_grid.jsonl,
torch_lda_gibbs.jsonl and before/bench_gamma_grid.jsonl (the kernel before
the change) in the folder given (default: the reference run). Writes the
tables between their markers; prints the theta-phi ratio and bandwidth."""
import json
import re
import sys

D = (sys.argv[1] if len(sys.argv) > 1 else 'docs/device-logs/2026-11-30/lda-perf') + '/'
out = []
print = lambda *a: out.append(' '.join(str(x) for x in a))
def rows(f): return [json.loads(l) for l in open(D+f) if l.startswith('{')]
ours=rows('bench_gamma_grid.jsonl'); torch=rows('torch_gamma_grid.jsonl'); before=rows('before/bench_gamma_grid.jsonl')
bw=[r for r in ours if r['what']=='device'][0]['copy_bandwidth_gbs']
T={(r['dtype'],float(r['shape'])):r for r in torch if r['what']=='torch gamma'}
B={(r['dtype'],float(r['shape'])):r for r in before if r['what']=='gamma'}
print('| dtype | shape | ours ms | GS/s | torch._standard_gamma GS/s | ours / torch | before (35f1764) GS/s | floor ms (read shape + write variate) |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
for dt in ('f32','f64'):
  for r in ours:
    if r['what']!='gamma' or r['dtype']!=dt: continue
    k=(dt,float(r['shape'])); t=T[k]; b=B[k]
    size=4 if dt=='f32' else 8
    floor=r['draws']*2*size/(bw*1e9)*1e3
    print(f"| {dt} | {r['shape']:g} | {r['ms']:.3f} | {r['gsamples_per_s']:.1f} | {t['gsamples_per_s']:.1f} | {r['gsamples_per_s']/t['gsamples_per_s']:.2f}x | {b['gsamples_per_s']:.1f} | {floor:.3f} |")
print()
it=[r for r in ours if r['what']=='lda gibbs iteration']
tg=rows('torch_lda_gibbs.jsonl'); tp=[r for r in torch if r['what']=='torch lda theta phi'][0]
bi=[r for r in before if r['what']=='lda gibbs iteration']
print('| dtype | z draw (butterfly) ms | theta and phi ms | iteration ms | PyTorch iteration ms (multinomial / exponential race) | PyTorch z / theta-phi ms (race) | iteration vs PyTorch\'s best | before (35f1764): theta-phi / iteration ms |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
for r in it:
  m=[x for x in tg if x.get('dtype')==r['dtype'] and x.get('z_draw')=='multinomial'][0]
  e=[x for x in tg if x.get('dtype')==r['dtype'] and x.get('z_draw')=='exponential race'][0]
  b=[x for x in bi if x['dtype']==r['dtype']][0]
  best=min(m['iteration_ms'],e['iteration_ms'])
  print(f"| {r['dtype']} | {r['z_ms']:.2f} | {r['theta_phi_ms']:.2f} | {r['iteration_ms']:.2f} | {m['iteration_ms']:.1f} / {e['iteration_ms']:.1f} | {e['z_ms']:.1f} / {e['theta_phi_ms']:.2f} | {best/r['iteration_ms']:.1f}x | {b['theta_phi_ms']:.2f} / {b['iteration_ms']:.2f} |")
print(f"\ntorch theta/phi stand-in (f32): {tp['ms']} ms; ours f32 {it[0]['theta_phi_ms']} -> {tp['ms']/it[0]['theta_phi_ms']:.2f}x; bw {bw}")

text = '\n'.join(out)
gamma_tab, iter_tab = [t.strip() for t in text.split('\n\n')[:2]]
page = 'docs/perf/lda.md'
doc = open(page).read()
doc = re.sub(r"<!-- gamma-table -->.*?<!-- /gamma-table -->", lambda _: f"<!-- gamma-table -->\n{gamma_tab}\n<!-- /gamma-table -->", doc, flags=re.S)
doc = re.sub(r"<!-- lda-iteration-table -->.*?<!-- /lda-iteration-table -->", lambda _: f"<!-- lda-iteration-table -->\n{iter_tab}\n<!-- /lda-iteration-table -->", doc, flags=re.S)
open(page, 'w').write(doc)
sys.stdout.write(text.split('\n\n')[-1] + '\n')
