#!/bin/bash
# run.sh NAME [ColdBurst args...]: one instrumented ColdBurst run with the CPU sampler and nstat
name=$1; shift
cd /tmp/cold-diag
python3 /tmp/diag/sampler.py /tmp/diag/$name.cpu & sp=$!
nstat -n >/dev/null
echo "load before: $(cat /proc/loadavg)" > /tmp/diag/$name.out
timeout 400 java -Ddiag.timeline=/tmp/diag/$name -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.ColdBurst "$@" >> /tmp/diag/$name.out 2>&1
echo "rc=$?" >> /tmp/diag/$name.out
echo "load after: $(cat /proc/loadavg)" >> /tmp/diag/$name.out
nstat | grep -iE "listen|syn|overflow|drop|Retrans|TCPAbortOn|TCPTimeouts" >> /tmp/diag/$name.out
kill $sp
grep -E "^burst|load|rc=|Tcp|Listen" /tmp/diag/$name.out
