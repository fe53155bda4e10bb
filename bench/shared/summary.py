#!/usr/bin/env python3
"""Medians and spreads of ../shared/bench RESULT lines.

Reads lines such as `RESULT sync_us 0.31 us  [coro]`, each launch's lines
preceded by its `RESULT P 16 procs` line, and prints per core count, metric
and scheduler the median over the launches and the lowest and highest value:
on a shared VM the spread between launches is as large as most differences.
"""
import collections
import statistics
import sys

values = collections.OrderedDict()
procs = None
for line in sys.stdin:
    fields = line.split()
    if len(fields) < 3 or fields[0] != "RESULT":
        continue
    sched = fields[-1] if fields[-1].startswith("[") else ""
    if fields[1] == "P":
        procs = fields[2]
        continue
    try:
        value = float(fields[2])
    except ValueError:
        continue
    unit = fields[3] if len(fields) > 3 and not fields[3].startswith("[") else ""
    values.setdefault((procs, fields[1], unit, sched), []).append(value)

for (procs, metric, unit, sched), v in values.items():
    spread = "" if len(v) < 2 else "   (%s..%s, %d launches)" % (format(min(v), ".4g"), format(max(v), ".4g"), len(v))
    print("P=%-5s %-22s %10.4g %-8s %s%s" % (procs, metric, statistics.median(v), unit, sched, spread))
