import json,sys
# cpuph.py SAMPLES TIMELINE.csv: CPU ms per process/category in 500 ms bins of the burst
recs=[json.loads(l) for l in open(sys.argv[1])]
rows=open(sys.argv[2]).read().splitlines()[1:]
t0=min(int(l.split(',')[1]) for l in rows); t1=max(int(l.split(',')[5]) for l in rows)
B=int(sys.argv[3]) if len(sys.argv)>3 else 500
def at(t):
    best=recs[0]
    for r in recs:
        if r['t']<=t: best=r
    return best
cats=['app','C1','C2','GC','wait']
print('bin(ms)  '+'  '.join('%s:%s'%(p[0],c) for p in ('mashup','stubs','gen') for c in cats))
tot={}
t=t0
while t<t1+B*1e6:
    a=at(t); b=at(t+B*1e6)
    line='%6d '%((t-t0)/1e6)
    for p in ('mashup','stubs','gen'):
        for c in cats:
            v=(b.get(p,{}).get(c,0)-a.get(p,{}).get(c,0))*10
            tot[(p,c)]=tot.get((p,c),0)+v
            line+=' %5d'%v
    line+='  sysbusy %d/%d'%((b['sys']['busy']-a['sys']['busy'])*10,(b['sys']['all']-a['sys']['all'])*10)
    print(line); t+=B*1e6
    pass
print('total  '+' '.join('%5d'%tot[(p,c)] for p in ('mashup','stubs','gen') for c in cats))
