#!/bin/sh
# Costs that must grow linearly (issue 33): the time per item at n and at
# 16n items, and their ratio, which stays near 1 for a linear cost (16 for
# a quadratic one). Medians of ROUNDS launches.
#   declare: 4 cores in one process, each declaring n LQCD receives and n
#            sends (declareReceive, declareSendTo)
#   msgs:    2 ranks x 2 cores under mpirun, each core sending n 4-byte
#            BSMP messages in one superstep, with EBSP_MPI_BLOCK=64 (the
#            smallest block: a message of MPI per 64 bytes) and the default
#   block:   the same layouts, each core putting one block of n ints into
#            the next core (over 32 KiB: a payload sent apart)
#   regs:    4 cores in one process, each registering n variables and
#            withdrawing them in the order made, a sync after each
#
#   bench/scale/run.sh          (after make lib; `make bench-scale`)
#   N_DECL=1000 N_MSGS=10000 N_BLOCK=16384 N_REGS=2000 ROUNDS=3
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$here/bin
mkdir -p "$bin"
"$root/bin/bspcc" -std=gnu99 -O2 "$here/scale.c" -o "$bin/scale"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# per_item CMD...: the median time per item of ROUNDS launches
per_item() {
    i=1
    while [ "$i" -le "${ROUNDS:-3}" ]; do
        "$@" | sed -n 's/^RESULT [a-z]* [0-9]* \([0-9.e+-]*\)$/\1/p'
        i=$((i + 1))
    done | median
}
# line NAME N T(N) T(16N)
line() {
    awk -v name="$1" -v n="$2" -v a="$3" -v b="$4" 'BEGIN {
        printf "%-34s n=%-7d %9.4f us/item   16n=%-8d %9.4f us/item   ratio %.2f\n", name, n, a, 16 * n, b, b / a }'
}
nd=${N_DECL:-1000}
a=$(per_item "$bin/scale" 4 declare "$nd")
b=$(per_item "$bin/scale" 4 declare $((16 * nd)))
line "LQCD declarations, 4 cores" "$nd" "$a" "$b"
nr=${N_REGS:-2000}
a=$(per_item "$bin/scale" 4 regs "$nr")
b=$(per_item "$bin/scale" 4 regs $((16 * nr)))
line "registrations, 4 cores" "$nr" "$a" "$b"
if ! command -v mpirun >/dev/null; then
    echo "bench-scale: messages SKIPPED: mpirun not found (apt-get install openmpi-bin)"
    exit 0
fi
opts="--oversubscribe --mca btl self,vader"
[ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root"
nm=${N_MSGS:-10000}
nb=${N_BLOCK:-16384}
for blk in 64 default; do
    x=""
    [ "$blk" = default ] || x="-x EBSP_MPI_BLOCK=$blk"
    # shellcheck disable=SC2086
    a=$(per_item mpirun $opts -n 2 -x EBSP_RANK_CORES=2 $x "$bin/scale" 4 msgs "$nm")
    # shellcheck disable=SC2086
    b=$(per_item mpirun $opts -n 2 -x EBSP_RANK_CORES=2 $x "$bin/scale" 4 msgs $((16 * nm)))
    line "BSMP messages, 2x2, block $blk" "$nm" "$a" "$b"
    # shellcheck disable=SC2086
    a=$(per_item mpirun $opts -n 2 -x EBSP_RANK_CORES=2 $x "$bin/scale" 4 block "$nb")
    # shellcheck disable=SC2086
    b=$(per_item mpirun $opts -n 2 -x EBSP_RANK_CORES=2 $x "$bin/scale" 4 block $((16 * nb)))
    line "bsp_put ints, 2x2, block $blk" "$nb" "$a" "$b"
done
