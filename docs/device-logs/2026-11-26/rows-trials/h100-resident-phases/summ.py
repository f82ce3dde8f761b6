import re,statistics,sys
d=sys.argv[1]
for b in sys.argv[2:]:
    agg={}
    name=None
    import glob
    for f in sorted(glob.glob(f'{d}/phase_{b}_*.txt')):
        for l in open(f):
            if l.startswith('fp'): name=l.split(':')[0]; continue
            if not l.startswith('  event'): continue
            ev=float(re.search(r'event ([\d.]+)',l).group(1))
            m=[int(x) for x in re.findall(r'-?\d+',l.split('|',1)[1])]
            agg.setdefault(name,[]).append([ev]+m)
    print('==',b)
    for name,vals in agg.items():
        med=[statistics.median(v[i] for v in vals) for i in range(len(vals[0]))]
        print(f"{name:28s} event {med[0]:.1f} | landed {med[3]:.0f} summed {med[5]:.0f} seen {med[7]:.0f} tree {med[9]:.0f} drawn {med[10]:.0f} end {med[12]:.0f}")
