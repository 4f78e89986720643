#!/usr/bin/env python3
"""startup_trace.py EXE ARGS...: the data accesses of a process before
main's first instruction, in main, and after main returns, with the L1D
misses of each (docs/process-model.md section 8).

Runs `env -i valgrind --tool=lackey --trace-mem=yes EXE ARGS` from the
current directory, cuts the trace at main (0x108000 + its symbol) and at
the instruction after `call *%rax` in glibc 2.36's __libc_start_call_main
(libc + 0x2724a on Debian 12; libc's base from `valgrind -v -v`), and runs
the whole trace through cachegrind's L1D (LRU; an access straddling two
lines looks both up and misses if either does; a modify is one read).
Its totals equal cachegrind's summary line (checked: empty main, 42059
refs and 1722 misses both)."""
import subprocess, sys, re, os, collections
def run(exe, args, cwd=None, D1=(32768,8,64), keep=None, stdout=subprocess.DEVNULL):
    cwd = cwd or os.getcwd()
    log = keep or '/tmp/startup_trace.%d.log' % os.getpid()
    nm = subprocess.run(['nm', exe], capture_output=True, text=True).stdout
    main = 0x108000 + int(re.search(r'^([0-9a-f]+) T main$', nm, re.M).group(1), 16)
    subprocess.run(['env', '-i', 'valgrind', '--tool=lackey', '--trace-mem=yes', '-v',
                    '--log-file=' + log, exe] + args, cwd=cwd, stdout=stdout, check=False)
    v = subprocess.run(['env', '-i', 'valgrind', '--tool=none', '-v', '-v', exe] + args, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    m = re.search(r'Reading syms from \S+/libc.so.6\n.*svma 0x([0-9a-f]+), avma 0x([0-9a-f]+)', v)
    ret = int(m.group(2), 16) - int(m.group(1), 16) + 0x2724a
    return parse(log, main, ret, D1)
def parse(log, main, ret, D1):
    size, assoc, line = D1
    nsets = size // (assoc * line); lb = line.bit_length() - 1
    sets = [collections.OrderedDict() for _ in range(nsets)]
    def ref(blk):
        s = sets[blk & (nsets - 1)]
        if blk in s:
            s.move_to_end(blk); return False
        s[blk] = 1
        if len(s) > assoc: s.popitem(last=False)
        return True
    phase = 0
    acc = [0, 0, 0]; miss = [0, 0, 0]; rd = [0,0,0]; wr=[0,0,0]
    trace = [[], [], []]
    for l in open(log):
        if l.startswith('--'): continue
        if l.startswith('=='): continue
        if l[0] == 'I':
            a = int(l[3:].split(',')[0], 16)
            if phase == 0 and a == main: phase = 1
            elif phase == 1 and a == ret: phase = 2
            continue
        k = l[1]
        if k not in 'LSM': continue
        a, n = l[3:].split(',')
        a = int(a, 16); n = int(n)
        b1 = a >> lb; b2 = (a + n - 1) >> lb
        m1 = ref(b1)
        if b2 != b1: m1 = ref(b2) or m1
        acc[phase] += 1; miss[phase] += m1
        if k == 'S': wr[phase] += 1
        else: rd[phase] += 1
        trace[phase].append((k, a, n, m1))
    return dict(acc=acc, miss=miss, rd=rd, wr=wr, trace=trace)
if __name__ == '__main__':
    r = run(sys.argv[1], sys.argv[2:])
    for i, p in enumerate(['pre', 'main', 'post']):
        print(p, 'acc', r['acc'][i], 'rd', r['rd'][i], 'wr', r['wr'][i], 'miss', r['miss'][i])
    print('total acc', sum(r['acc']), 'miss', sum(r['miss']))
