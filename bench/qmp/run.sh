#!/bin/sh
# The QMP benchmark (issue 35's Speed section): qmp_bench.c, one QMP
# program, measured in the same run
#   - against our face in one process of 16 cores (EBSP_MESH=4x4) and in
#     2 ranks x 8 cores under mpirun (EBSP_RANK_CORES=8), when
#     lib/pkgconfig/qmp.pc exists (make lib);
#   - against QMP over MPI on 16 ranks (mpirun --oversubscribe), built from
#     QMP_DIR (its bin/qmp-config; a QMP built outside this repository,
#     e.g. configure --with-qmp-comms-type=MPI CC=mpicc --prefix=$QMP_DIR);
#   - our LQCD sumDouble on the same nodes (qmp_bench.c times it in
#     trials alternating with QMP_sum_double's), its yardstick;
#   - and the copy floor of each halo (copy_floor.c): the memcpy of the
#     same bytes in the same blocks, on one thread and on two.
# Each of the ROUNDS rounds (default 3) runs every side once, alternately,
# so that all see the same machine; the table shows the medians (us per
# operation), the ratios and issue 35's targets. mpirun runs with
# mpi_yield_when_idle 1, as the tests do: with more ranks than CPUs, ranks
# that poll without yielding made QMP over MPI 100 times slower here.
#
#   bench/qmp/run.sh          (after make lib; `make bench-qmp`)
#   QMP_DIR=/path/to/qmp ROUNDS=3 MPIRUN=mpirun
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$here/bin
mpirun=${MPIRUN:-mpirun}
mkdir -p "$bin"
asroot=
[ "$(id -u)" = 0 ] && asroot=--allow-run-as-root
havempi=no
command -v "$mpirun" >/dev/null 2>&1 && havempi=yes

ours=no
if [ -f "$root/lib/pkgconfig/qmp.pc" ]; then
    # shellcheck disable=SC2046
    gcc -std=gnu99 -O2 "$here/qmp_bench.c" -o "$bin/qmp_bench" \
        $(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --cflags --libs qmp) -lm
    ours=yes
else
    echo "bench-qmp: $root/lib/pkgconfig/qmp.pc not found: our QMP face is not built, its columns are skipped"
fi
ref=no
if [ -z "$QMP_DIR" ]; then
    echo "bench-qmp: QMP_DIR is not set: the reference (QMP over MPI on 16 ranks) is skipped"
elif [ "$havempi" = no ] || ! command -v mpicc >/dev/null 2>&1; then
    echo "bench-qmp: mpicc or $mpirun not found: the reference is skipped (apt-get install openmpi-bin libopenmpi-dev)"
else
    qc="$QMP_DIR/bin/qmp-config"
    # shellcheck disable=SC2046
    mpicc -std=gnu99 -O2 $("$qc" --cflags) "$here/qmp_bench.c" -o "$bin/qmp_bench_ref" \
        $("$qc" --ldflags) $("$qc" --libs) -lm
    ref=yes
fi

gcc -std=gnu99 -O2 "$here/copy_floor.c" -o "$bin/copy_floor" -pthread

results=$bin/results.txt
: >"$results"
tag() { sed -n "s/^RESULT \([a-z_0-9A-Z]*\) \([0-9.]*\)$/$1 \1 \2/p"; }
r=1
while [ "$r" -le "${ROUNDS:-3}" ]; do
    if [ "$ours" = yes ]; then
        EBSP_MESH=4x4 "$bin/qmp_bench" | tag ours_1x16 >>"$results"
        if [ "$havempi" = yes ]; then
            $mpirun $asroot --oversubscribe --mca mpi_yield_when_idle 1 -n 2 -x EBSP_RANK_CORES=8 \
                "$bin/qmp_bench" | tag ours_2x8 >>"$results"
        fi
    fi
    if [ "$ref" = yes ]; then
        $mpirun $asroot --oversubscribe --mca mpi_yield_when_idle 1 -n 16 "$bin/qmp_bench_ref" | tag ref_16 >>"$results"
    fi
    "$bin/copy_floor" 16 | tag floor >>"$results"
    r=$((r + 1))
done

# medians per (side, metric), then one line per metric
sort -k2,2 -k1,1 -k3,3g "$results" | awk '
    function flush() { if (n) { med[key] = v[int((n + 1) / 2)]; n = 0 } }
    BEGIN { m = split("halo_8 halo_1024 halo_65536 sum_double sum_double_array_1000", order, " ") }
    { k = $1 " " $2; if (k != key) { flush(); key = k } v[++n] = $3 }
    function cell(x) { return x == "" ? "-" : x }
    function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.1fx", a / b) }
    function verdict(a, b, want) { return (a == "" || b == "" || b + 0 == 0) ? "" : (a / b >= want ? "met" : "MISSED") }
    END {
        flush()
        printf "%-22s %12s %12s %8s %-7s %12s %8s %-7s\n", "us per operation", "QMP/MPI 16", "ours 1x16", "ratio", "(>=10x)", "ours 2x8", "ratio", "(>=5x)"
        for (i = 1; i <= m; i++) {
            q = order[i]
            R = med["ref_16 " q]; A = med["ours_1x16 " q]; B = med["ours_2x8 " q]
            printf "%-22s %12s %12s %8s %-7s %12s %8s %-7s\n", q, cell(R), cell(A), ratio(R, A), verdict(R, A, 10), cell(B), ratio(R, B), verdict(R, B, 5)
        }
        printf "\nhalo against its copy floor (the memcpy of the same blocks on 1 and 2 threads; ratio: ours / the faster of the two)\n"
        printf "%-22s %12s %12s %12s %8s %12s %8s\n", "us per exchange", "copy 1 CPU", "copy 2 CPUs", "ours 1x16", "ratio", "ours 2x8", "ratio"
        m = split("8 1024 65536", faces, " ")
        for (i = 1; i <= m; i++) {
            F1 = med["floor copy1_" faces[i]]; F2 = med["floor copy2_" faces[i]]
            F = (F1 != "" && (F2 == "" || F1 + 0 < F2 + 0)) ? F1 : F2
            A = med["ours_1x16 halo_" faces[i]]; B = med["ours_2x8 halo_" faces[i]]
            printf "%-22s %12s %12s %12s %8s %12s %8s\n", "halo_" faces[i], cell(F1), cell(F2), cell(A), ratio(A, F), cell(B), ratio(B, F)
        }
        printf "\n"
        split("1x16 2x8", layouts, " ")
        for (i = 1; i <= 2; i++) {
            L = med["ours_" layouts[i] " lqcd_sumDouble"]; S = med["ours_" layouts[i] " sum_double"]
            printf "QMP_sum_double %s us, LQCD sumDouble %s us on the same %s nodes: %s (target: within 2x) %s\n", cell(S), cell(L),
                layouts[i], ratio(S, L), (S == "" || L == "") ? "" : (S / L <= 2 ? "met" : "MISSED")
        }
    }'
