#!/bin/sh
# Compares builds of libebsp on the BSPlib face's hottest measures, launch
# by launch in one session so that every build sees the same machine:
# calls.c (one 8-byte bsp_put, bsp_hpput and bsp_send through bsp.h and
# e_bsp.h, at P=2) and bsp_micro.c's empty bsp_sync at P=16. The builds
# take turns in each round, the order turning by one each round; prints
# per build the median of the rounds and its ratio to the first build,
# and the best round (the least disturbed by the machine's other work:
# on a loaded machine the more telling of the two).
#
#   bench/bsplib/compare.sh TREE...   (each a tree after `make lib`)
#   bench/bsplib/compare.sh           this tree alone
#   ROUNDS=5 SYNC_SECONDS=0.5 SYNC_P=16 CALLS_P=2
#
# e.g., against two commits (a worktree each, `make lib` in each):
#   git worktree add --detach /tmp/base 26279ee && make -C /tmp/base lib
#   bench/bsplib/compare.sh /tmp/base /tmp/main .
# On a busy machine the medians move between runs by more than the
# differences measured here: give the load (uptime) with any numbers.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$here/../.."
rounds=${ROUNDS:-5}
bin=$here/bin/compare
mkdir -p "$bin"
trees="" n=0
for t in "$@"; do
    t=$(cd "$t" && pwd)
    if [ ! -x "$t/bin/bspcc" ] || [ ! -f "$t/lib/libebsp.so.1" ]; then
        echo "compare.sh: $t has no bin/bspcc or lib/libebsp.so.1: run make lib there" >&2
        exit 1
    fi
    n=$((n + 1))
    "$t/bin/bspcc" -std=gnu99 -O2 "$here/calls.c" "$here/calls_ebsp.c" -o "$bin/calls$n"
    "$t/bin/bspcc" -std=gnu99 -O2 "$here/bsp_micro.c" -o "$bin/micro$n"
    echo "build $n: $t ($(git -C "$t" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    trees="$trees $n"
done
results=$bin/results.txt
: >"$results"
echo "load before: $(uptime | sed 's/.*load average: //')"
r=1
while [ "$r" -le "$rounds" ]; do
    # this round's order: the builds turned by r
    order=$(echo $trees | awk -v r="$r" '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1) }')
    for i in $order; do
        "$bin/calls$i" "${CALLS_P:-2}" | awk -v b="$i" '/_call_ns/ { print b, $1 "_bsp.h", $2; print b, $1 "_e_bsp.h", $3 }' >>"$results"
        "$bin/micro$i" "${SYNC_P:-16}" "${SYNC_SECONDS:-0.5}" 1024 sync |
            sed -n "s/^RESULT sync_us \([-0-9.e+]*\) .*/$i sync_us_P${SYNC_P:-16} \1/p" >>"$results"
    done
    r=$((r + 1))
done
echo "load after: $(uptime | sed 's/.*load average: //')"
sort -k2,2 -k1,1n -k3,3g "$results" | awk -v rounds="$rounds" '
    { k = $2 " " $1; v[k, ++c[k]] = $3; if (!($2 in seen)) { seen[$2] = 1; metric[++m] = $2 } if ($1 > nb) nb = $1 }
    END {
        for (q = 0; q < 2; q++) {
            printf "%-24s", (q ? "best of " : "median of ") rounds
            for (b = 1; b <= nb; b++) printf " %10s %6s", "build " b, "/1"
            printf "\n"
            for (i = 1; i <= m; i++) {
                printf "%-24s", metric[i]
                for (b = 1; b <= nb; b++) {
                    k = metric[i] " " b; n = c[k]
                    x[b] = n ? v[k, q ? 1 : int((n + 1) / 2)] : ""
                    printf " %10s %6s", x[b] == "" ? "-" : x[b], (b > 1 && x[1] + 0 > 0 && x[b] != "") ? sprintf("%.2f", x[b] / x[1]) : ""
                }
                printf "\n"
            }
        }
    }'
