import os, sys, time, re, json
# usage: sampler.py OUT  -- samples per-thread CPU of the mashup server, stubs and generator JVMs every 100 ms
out=open(sys.argv[1],'w')
marks={'mashup':'mashup-server.jar','stubs':'partner-stubs.jar','gen':'capacity.ColdBurst'}
root=sys.argv[2] if len(sys.argv)>2 else '/tmp/cold-diag'
def pids():
    r={}
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try: c=open('/proc/%s/cmdline'%p,'rb').read().replace(b'\0',b' ').decode()
        except: continue
        if 'sampler.py' in c: continue
        try:
            if os.readlink('/proc/%s/cwd'%p)!=root: continue
        except: continue
        for k,m in marks.items():
            if m in c and (k!='mashup' or '--admin-port' in c): r[k]=p
    return r
def cat(name):
    if name.startswith('C2 Compiler'): return 'C2'
    if name.startswith('C1 Compiler'): return 'C1'
    if name.startswith('GC ') or name.startswith('G1 '): return 'GC'
    if name.startswith('VM Thread'): return 'VM'
    return 'app'
end=time.time()+float(os.environ.get('SAMPLER_SECONDS','600'))
while time.time()<end:
    t=time.monotonic_ns()
    rec={'t':t}
    st=open('/proc/stat').readline().split()[1:]
    rec['sys']={'busy':sum(int(x) for x in st)-int(st[3])-int(st[4]),'all':sum(int(x) for x in st)}
    for k,p in pids().items():
        d={}
        try:
            for tid in os.listdir('/proc/%s/task'%p):
                try: s=open('/proc/%s/task/%s/stat'%(p,tid)).read()
                except: continue
                name=s[s.index('(')+1:s.rindex(')')]; f=s[s.rindex(')')+2:].split()
                ticks=int(f[11])+int(f[12])
                c=cat(name); d[c]=d.get(c,0)+ticks
                try:
                    ss=open('/proc/%s/task/%s/schedstat'%(p,tid)).read().split()
                    d['wait']=d.get('wait',0)+int(ss[1])/1e7
                    if c=='app': d['wait_app']=d.get('wait_app',0)+int(ss[1])/1e7
                    if c=='app' and k=='mashup': d['w:'+name+':'+tid]=int(ss[1])/1e7; d['r:'+name+':'+tid]=int(ss[0])/1e7
                except Exception: pass
                if k in ('mashup','stubs') and c=='app': d['t:'+name+':'+tid]=ticks
        except FileNotFoundError: continue
        rec[k]=d
    out.write(json.dumps(rec)+'\n'); out.flush()
    time.sleep(0.1)
