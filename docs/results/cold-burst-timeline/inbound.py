import sys, re, csv
def load(f):
    rows=[]
    for line in open(f).read().splitlines()[1:]:
        p=line.split(',',6)
        d=dict(i=int(p[0]),start=int(p[1]),connected=int(p[2]),sent=int(p[3]),first=int(p[4]),answered=int(p[5]))
        h=p[6]
        m=re.search(r'X-T: ([^|]*)',h)
        if m:
            x=m.group(1).split(';')
            d['begin']=int(x[0]); d['servlet']=int(x[1]); d['arrived']=int(x[2]); d['write']=int(x[3])
            createdMs=int(x[4]); nowMs=int(x[5]); nowN=int(x[6]); d['thread']=x[7]
            d['created']=nowN-(nowMs-createdMs)*1000000
        for name,k in (('partner1','p1'),('partner2','p2')):
            m=re.search(r'"'+name+r'":\{([^}]*)',h)
            if m:
                r=re.search(r'receivedAtMicros":(\d+)',m.group(1))
                if r: d[k]=int(r.group(1))*1000
                e=re.search(r'elapsedMillis":(\d+)',m.group(1)); 
                if e: d[k+'el']=int(e.group(1))
        m=re.search(r'HTTP/1.1 (\d+)',h); d['status']=m.group(1) if m else '?'
        rows.append(d)
    return rows
def pct(v,q): 
    v=sorted(v); return v[min(len(v)-1,int(q*len(v)))] if v else None
f=sys.argv[1]; rows=load(f)
t0=min(r['start'] for r in rows)
keys=['connected','sent','created','begin','servlet','p1','p2','arrived','write','first','answered']
print(f, len(rows), 'rows; statuses', {s:sum(1 for r in rows if r['status']==s) for s in set(r['status'] for r in rows)})
print('%-10s %7s %7s %7s %7s %7s %7s  (ms since first connect)'%('event','n','min','p10','p50','p90','max'))
for k in keys:
    v=[(r[k]-t0)/1e6 for r in rows if r.get(k)]
    if v: print('%-10s %7d %7.0f %7.0f %7.0f %7.0f %7.0f'%(k,len(v),min(v),pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
print('--- per-request gaps (ms): p10 p50 p90 max')
gaps=[('sent->created','sent','created'),('created->begin','created','begin'),('sent->begin','sent','begin'),('begin->servlet','begin','servlet'),('servlet->p1','servlet','p1'),('servlet->p2','servlet','p2'),
      ('p2->arrived','p2','arrived'),('p2+1000->arrived',None,None),('arrived->write','arrived','write'),('write->first','write','first'),('first->answered','first','answered'),('sent->answered','sent','answered')]
for name,a,b in gaps:
    if a is None:
        v=[(r['arrived']-r['p2'])/1e6-1000 for r in rows if r.get('p2') and r.get('arrived')]
    else:
        v=[(r[b]-r[a])/1e6 for r in rows if r.get(a) and r.get(b)]
    if v: print('%-18s %7.0f %7.0f %7.0f %7.0f'%(name,pct(v,.1),pct(v,.5),pct(v,.9),max(v)))
# histogram by 500ms bins
B=500
mx=int(max((r['answered']-t0)/1e6 for r in rows if r['answered'])/B)+1
print('--- counts per %d ms bin: '%B+' '.join('%6s'%k[:6] for k in ['sent','begin','p1','p2','arrive','write','answer']))
for b in range(mx):
    lo=t0+b*B*1e6; hi=lo+B*1e6
    c=[sum(1 for r in rows if r.get(k) and lo<=r[k]<hi) for k in ['sent','begin','p1','p2','arrived','write','answered']]
    print('%5d-%5d '%(b*B,(b+1)*B)+' '.join('%6d'%x for x in c))
