import sys, re
# an2.py TIMELINE.csv CALLS.csv: broker calls within the burst's window, with stub stamps from the timeline bodies
rows=open(sys.argv[1]).read().splitlines()[1:]
t0=min(int(l.split(',')[1]) for l in rows); t1=max(int(l.split(',')[5]) for l in rows)
stub=[]
for l in rows:
    for name in ('partner1','partner2'):
        m=re.search(r'"'+name+r'":\{([^}]*)',l)
        if not m: continue
        g=dict(re.findall(r'"(\w+)":(\d+)',m.group(1).replace(';',',')))
        if 'receivedAtMicros' in g:
            rec=int(g['receivedAtMicros'])*1000; beg=int(g['beginMicros'])*1000
            acc=int(g['nowMicros'])*1000-(int(g['nowMs'])-int(g['acceptedMs']))*1000000
            stub.append((acc,beg,rec))
calls=[]
for l in open(sys.argv[2]).read().splitlines()[1:]:
    p=l.split(',')
    v=[int(x) for x in p[1:7]]
    if t0<=v[0]<=t1: calls.append(dict(uri=p[0],start=v[0],open=v[1],connected=v[2],written=v[3],headers=v[4],done=v[5],fresh=p[7],fail=p[8],stubwrite=int(p[9]) if len(p)>9 and p[9] else 0))
def pct(v,q):
    v=sorted(v); return v[min(len(v)-1,int(q*len(v)))] if v else float('nan')
print(len(calls),'calls in window; fresh',sum(c['fresh']=='true' for c in calls),'failures',sum(1 for c in calls if c['fail']))
print('%-22s %7s %7s %7s %7s %7s'%('ms since burst start','min','p10','p50','p90','max'))
for k in ('start','open','connected','written','stubwrite','headers','done'):
    v=[(c[k]-t0)/1e6 for c in calls if c[k]]
    print('%-22s %7.0f %7.0f %7.0f %7.0f %7.0f'%(k,min(v),pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
for i,k in enumerate(('stub accepted','stub req begin','stub handler')):
    v=[(s[i]-t0)/1e6 for s in stub]
    print('%-22s %7.0f %7.0f %7.0f %7.0f %7.0f'%(k,min(v),pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
print('gaps p10 p50 p90 max')
for a,b in (('stubwrite','headers'),('start','open'),('open','connected'),('connected','written'),('start','written'),('written','headers'),('headers','done')):
    v=[(c[b]-c[a])/1e6 for c in calls if c[a] and c[b]]
    print('%-22s %7.0f %7.0f %7.0f %7.0f'%(a+'->'+b,pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
for name,i,j in (('stub accept->begin',0,1),('stub begin->handler',1,2)):
    v=[(s[j]-s[i])/1e6 for s in stub]
    print('%-22s %7.0f %7.0f %7.0f %7.0f'%(name,pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
# late response: headers - (written + delay)
for d in ('500','1000'):
    v=[(c['headers']-c['written'])/1e6-int(d) for c in calls if c['headers'] and c['written'] and ('delay='+d+'&') in c['uri']+'&']
    print('written->headers - delay %-5s %7.0f %7.0f %7.0f %7.0f'%(d,pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
B=250
print('--- per %d ms: '%B+' '.join('%6s'%k for k in ('start','open','conn','writtn','st.wr','st.acc','st.beg','st.hdl','hdrs','done')))
mx=int((t1-t0)/1e6/B)+1
for b in range(mx):
    lo=t0+b*B*1e6; hi=lo+B*1e6
    c=[sum(1 for x in calls if lo<=x[k]<hi) for k in ('start','open','connected','written')]
    c+=[sum(1 for x in calls if lo<=x['stubwrite']<hi)]
    c+= [sum(1 for s in stub if lo<=s[i]<hi) for i in range(3)]
    c+=[sum(1 for x in calls if lo<=x[k]<hi) for k in ('headers','done')]
    print('%5d '%(b*B)+' '.join('%6d'%x for x in c))
