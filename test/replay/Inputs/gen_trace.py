# gen_trace.py OUT.json ITERATIONS: a synthetic libtidal trace (about 4 KB
# an iteration: 20 resident-bytes counters and swap-outs each) for
# `tidal report`'s large-input test.
import sys

n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    f.write('{"displayTimeUnit":"ms","traceEvents":[\n')
    f.write('{"ph":"M","ts":0,"pid":1,"tid":5,"name":"thread_name","args":{"name":"iterations"}}')
    f.write(',\n{"ph":"C","ts":0,"pid":1,"tid":0,"name":"budget bytes","args":{"bytes":%d}}' % (16 << 20))
    for k in range(n):
        t = k * 100
        f.write(',\n{"ph":"B","ts":%d,"pid":1,"tid":5,"name":"iteration %d"}' % (t, k))
        for j in range(20):
            f.write(',\n{"ph":"C","ts":%d,"pid":1,"tid":0,"name":"resident bytes","args":{"bytes":%d}}' % (t + 1 + j * 4, (j + 1) << 20))
            f.write(',\n{"ph":"X","ts":%d,"dur":2,"pid":1,"tid":2,"name":"swap_out","args":{"ptr":"0x1","bytes":2097152}}' % (t + 2 + j * 4))
        f.write(',\n{"ph":"E","ts":%d,"pid":1,"tid":5}' % (t + 99))
    f.write('\n]}\n')
