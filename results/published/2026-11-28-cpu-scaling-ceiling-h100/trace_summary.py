import glob,collections,sys
for f in sorted(glob.glob(sys.argv[1])):
    txt=open(f).read().split('# build\n')[1]  # the CPU builder's build only
    sp=[]
    for l in txt.splitlines():
        t,n,a,s,e=l.split(); sp.append((t,n,int(a),float(s),float(e)))
    tot=collections.defaultdict(float)
    for t,n,a,s,e in sp: tot[n]+=e-s
    marks={n:e for t,n,a,s,e in sp if n in('mesh_loop','mesh_levels','top_level','build')}
    meshes=[x for x in sp if x[1]=='mesh']
    threads=collections.defaultdict(list)
    for x in meshes: threads[x[0]].append(x)
    tend=sorted(max(y[4] for y in v) for v in threads.values())
    busy=sorted(sum(y[4]-y[3] for y in v) for v in threads.values())
    print(f, ' '.join(f'{k}={v:.0f}' for k,v in tot.items() if k not in marks), '| ', ' '.join(f'{k}={v:.0f}' for k,v in marks.items()),
      '| ends %.0f/%.0f/%.0f' % (tend[0], tend[len(tend)//2], tend[-1]), 'busy %.0f/%.0f/%.0f' % (busy[0], busy[len(busy)//2], busy[-1]))
