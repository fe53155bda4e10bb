#!/bin/sh
# BSPlib programs across MPI ranks, against Open MPI's own floor measured
# in the same run: bench/bsplib/bsp_micro.c under mpirun in each layout
# (ranks x EBSP_RANK_CORES), and mpi_floor.c (an MPI_Barrier; an
# MPI_Alltoallv of the bytes that cross ranks in a superstep of 8-byte
# puts) with the same ranks; lqcd_ring.c (a ring halo on LQCD channels)
# next to mpi_ring.c (the same on Open MPI's persistent requests, one rank
# per core). Prints medians of ROUNDS launches and the ratios: empty
# superstep / MPI_Barrier, put superstep / MPI_Alltoallv, halo / MPI's.
#
#   bench/mpi/run.sh            (after make lib; `make bench-mpi`)
#   LAYOUTS="2x1 2x8 tcp:2x1" ROUNDS=3 SECONDS_PER_TEST=0.3
#   BSPONMPI_DIR=...   BSPonMPI too, one rank per BSP process (../bsponmpi.sh)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$here/bin
mkdir -p "$bin"
if ! command -v mpirun >/dev/null; then
    echo "bench-mpi: SKIPPED: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
"$root/bin/bspcc" -std=gnu99 -O2 "$root/bench/bsplib/bsp_micro.c" -o "$bin/bsp_micro"
"$root/bin/bspcc" -std=gnu99 -O2 "$here/lqcd_ring.c" -o "$bin/lqcd_ring"
floor=no
if command -v mpicc >/dev/null; then
    mpicc -std=gnu99 -O2 "$here/mpi_floor.c" -o "$bin/mpi_floor"
    mpicc -std=gnu99 -O2 "$here/mpi_ring.c" -o "$bin/mpi_ring"
    floor=yes
else
    echo "(mpicc not found: Open MPI's floor is not measured; apt-get install libopenmpi-dev)"
fi
# shellcheck source=../bsponmpi.sh
. "$root/bench/bsponmpi.sh"
other=no
bsponmpi_build "$root/bench/bsplib/bsp_micro.c" "$bin/bsp_micro_bsponmpi" && other=yes
opts="--oversubscribe"
[ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root"
secs=${SECONDS_PER_TEST:-0.3}
H=16384 # bsp_micro's largest h
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
for layout in ${LAYOUTS:-2x1 2x8 tcp:2x1}; do
    btl=""
    case $layout in tcp:*) btl="--mca btl self,tcp"; layout=${layout#tcp:} ;; esac
    R=${layout%x*}
    C=${layout#*x}
    P=$((R * C))
    res=$bin/results-$R-$C.txt
    : >"$res"
    i=1
    while [ "$i" -le "${ROUNDS:-3}" ]; do
        # shellcheck disable=SC2086
        mpirun $opts $btl -n "$R" -x EBSP_RANK_CORES="$C" "$bin/bsp_micro" "$P" "$secs" |
            sed -n "s/^RESULT \([A-Za-z0-9_]*\) \([-0-9.e+]*\) .*/ebsp \1 \2/p; s/^DETAIL put8 h=$H T_us=\([0-9.]*\)/ebsp put8_h${H}_us \1/p;
                s/^DETAIL blk mode=put blk_bytes=\([0-9]*\) T_us=\([0-9.]*\)/ebsp blk_bytes \1\nebsp put_blk_us \2/p;
                s/^DETAIL blk mode=hpput blk_bytes=[0-9]* T_us=\([0-9.]*\)/ebsp hpput_blk_us \1/p" >>"$res"
        if [ "$floor" = yes ]; then
            # the 8-byte words that cross ranks in one superstep of the put test, per rank:
            # each core spreads H words over all P pids, itself included (word i to
            # pid (s + i) mod P), of which P-C are on other ranks
            words=$((C * H * (P - C) / P))
            # shellcheck disable=SC2086
            mpirun $opts $btl -n "$R" "$bin/mpi_floor" "$words" "$secs" 8 $((C * H)) |
                sed -n "s/^RESULT \(mpi_[a-z_]*\) \([-0-9.e+]*\) .*/mpi \1 \2/p" >>"$res"
            # the block test: each core puts one block to every other core
            blk=$(awk '$1 == "ebsp" && $2 == "blk_bytes" { b = $3 } END { print b + 0 }' "$res")
            # shellcheck disable=SC2086
            [ "$blk" -gt 0 ] && mpirun $opts $btl -n "$R" "$bin/mpi_floor" $((C * (P - C))) "$secs" "$blk" |
                sed -n "s/^RESULT mpi_alltoallv_us \([-0-9.e+]*\) .*/mpi blk_alltoallv_us \1/p;
                    s/^RESULT mpi_copy_alltoallv_us \([-0-9.e+]*\) .*/mpi blk_copy_alltoallv_us \1/p" >>"$res"
            # with several cores per rank, also the barrier of one rank per BSP
            # process: what an empty superstep of P processes costs on MPI alone
            # shellcheck disable=SC2086
            [ "$C" -gt 1 ] && mpirun $opts $btl -n "$P" "$bin/mpi_floor" 0 "$secs" |
                sed -n "s/^RESULT mpi_barrier_us \([-0-9.e+]*\) .*/mpi barrier_p_us \1/p" >>"$res"
            # the ring halo on Open MPI itself, one rank per core
            # shellcheck disable=SC2086
            mpirun $opts $btl -n "$P" "$bin/mpi_ring" "$secs" |
                sed -n "s/^RESULT mpi_ring_us \([0-9]*\) \([-0-9.e+]*\) .*/mpi ring_\1_us \2/p" >>"$res"
        fi
        if [ "$other" = yes ]; then # BSPonMPI: one rank per BSP process
            bsponmpi_run "$P" "$secs" "${btl#--mca btl }" |
                sed -n "s/^RESULT \([A-Za-z0-9_]*\) \([-0-9.e+]*\) .*/bsponmpi \1 \2/p;
                    s/^DETAIL put8 h=$H T_us=\([0-9.]*\)/bsponmpi put8_h${H}_us \1/p" >>"$res"
        fi
        # shellcheck disable=SC2086
        mpirun $opts $btl -n "$R" -x EBSP_RANK_CORES="$C" "$bin/lqcd_ring" "$secs" |
            sed -n "s/^RESULT lqcd_ring_us \([0-9]*\) \([-0-9.e+]*\) .*/ebsp ring_\1_us \2/p" >>"$res"
        i=$((i + 1))
    done
    get() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$res" | median; }
    echo "== $R ranks x $C cores (P=$P)${btl:+, TCP only}: medians of ${ROUNDS:-3}"
    for m in sync_us put8_g_ns put8_h${H}_us put_blk_GBps get_blk_GBps send16_Mmsgps; do
        echo "  libebsp $m $(get ebsp "$m")"
    done
    if [ "$other" = yes ]; then
        for m in sync_us put8_g_ns put_blk_GBps get_blk_GBps send16_Mmsgps; do
            e=$(get ebsp "$m")
            o=$(get bsponmpi "$m")
            # how many times better libebsp is: rates up, times down
            awk -v m="$m" -v e="$e" -v o="$o" -v p="$P" 'BEGIN {
                if (e + 0 > 0 && o + 0 > 0) printf "  BSPonMPI (%d ranks) %s %s: libebsp %.2fx better\n", p, m, o, m ~ /(GBps|Mmsgps)$/ ? e / o : o / e }'
        done
    fi
    if [ "$floor" = yes ]; then
        b=$(get mpi mpi_barrier_us)
        a=$(get mpi mpi_alltoallv_us)
        s=$(get ebsp sync_us)
        p=$(get ebsp put8_h${H}_us)
        k=$(get ebsp put_blk_us)
        kh=$(get ebsp hpput_blk_us)
        ka=$(get mpi blk_alltoallv_us)
        kc=$(get mpi blk_copy_alltoallv_us)
        aw=$(get mpi mpi_words_alltoallv_us)
        echo "  Open MPI: MPI_Barrier $b us; MPI_Alltoallv of the bytes that cross ranks in the 8-byte put superstep $a us, in the block superstep $ka us"
        echo "  Open MPI after the copy bsp_put makes at the call: the words appended by a call each, then MPI_Alltoallv, $aw us; the blocks copied by memcpy, then MPI_Alltoallv, $kc us"
        bp=$(get mpi barrier_p_us)
        [ -n "$bp" ] && awk -v s="$s" -v bp="$bp" -v p="$P" 'BEGIN {
            printf "  Open MPI, one rank per BSP process: MPI_Barrier of %d ranks %s us; empty superstep / it %.3f\n", p, bp, s / bp }'
        awk -v s="$s" -v b="$b" -v p="$p" -v a="$a" -v k="$k" -v kh="$kh" -v ka="$ka" 'BEGIN {
            printf "  ratios: empty superstep / MPI_Barrier %.2f; 8-byte put superstep (h=%d) / MPI_Alltoallv %.2f; block put superstep / MPI_Alltoallv %.2f (hpput %.2f)\n",
                s / b, '"$H"', p / a, k / ka, kh / ka }'
        awk -v p="$p" -v aw="$aw" -v k="$k" -v kc="$kc" 'BEGIN {
            if (aw + 0 > 0 && kc + 0 > 0) printf "  ratios to the floors with the copy at the call: 8-byte put superstep %.2f; block put superstep %.2f\n", p / aw, k / kc }'
        o=$(get bsponmpi put8_h${H}_us)
        if [ -n "$o" ]; then
            awk -v o="$o" -v a="$a" -v p="$P" 'BEGIN {
                printf "  BSPonMPI (%d ranks): 8-byte put superstep / MPI_Alltoallv %.2f\n", p, o / a }'
        fi
    fi
    for n in 8 1024 65536; do
        e=$(get ebsp "ring_${n}_us")
        o=$(get mpi "ring_${n}_us")
        printf "  LQCD ring halo of %d bytes: libebsp %s us" "$n" "$e"
        [ -n "$o" ] && awk -v e="$e" -v o="$o" -v p="$P" 'BEGIN { printf "; Open MPI persistent requests, %d ranks, %s us (ratio %.2f)", p, o, e / o }'
        echo
    done
done
