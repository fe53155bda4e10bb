#!/bin/sh
# Compares libebsp's two faces on one micro-benchmark: the EBSP form of
# ../shared/bench (host_micro.c + e_micro.c) and its BSPlib form
# (bsp_micro.c, built with bspcc), run alternately in one session so that
# both see the same machine. Prints the median of ROUNDS runs per metric.
#
#   bench/bsplib/run.sh            (after make lib; `make bench-bsplib`)
#   PS="2 16" ROUNDS=3 SECONDS_PER_TEST=0.5 SHARED_BENCH=../shared/bench
#   BSPONMPI_DIR=...   BSPonMPI (../bsponmpi.sh) for require.sh, and with
#   BSPONMPI_PS="2"    its whole micro-benchmark beside the two faces, on P
#                      ranks, at these P, in the same rounds (minutes on 2
#                      CPUs at P=2, many more at 16)
#   NEW_ROOT=tree      the libebsp measured (after make lib there; default this tree)
#   REQUIRE=no|only    leave out, or run alone, issue 32's requirement lines
#
# Without ../shared/bench only the BSPlib form runs. Then calls.c times one
# call through each face in one process (less exposed to machine noise).
# Last, require.sh measures issue 32's speed requirements, each against its
# reference in the same run (libebsp at BASE_REV, MulticoreBSP for C with
# MCBSP_DIR, BSPonMPI with BSPONMPI_DIR, under mpirun): see there.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "$REQUIRE" = only ]; then
    exec "$here/require.sh"
fi
new=$(cd "${NEW_ROOT:-${LIBEBSP_ROOT:-$root}}" && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
bin=$here/bin
mkdir -p "$bin"
"$new/bin/bspcc" -std=gnu99 -O2 "$here/bsp_micro.c" -o "$bin/bsp_micro"
"$new/bin/bspcc" -std=gnu99 -O2 "$here/calls.c" "$here/calls_ebsp.c" -o "$bin/calls"
ebsp=no
if [ -f "$shared/host_micro.c" ] && [ -f "$shared/e_micro.c" ]; then
    gcc -std=gnu99 -O2 -I"$new/include" "$shared/host_micro.c" -o "$bin/host_micro" \
        -L"$new/lib" -Wl,-rpath,"$new/lib" -lebsp
    gcc -std=gnu99 -O2 -shared -fPIC -I"$new/include" "$shared/e_micro.c" -o "$bin/e_micro.elf"
    ebsp=yes
else
    echo "($shared not found: the EBSP form is skipped)"
fi
# shellcheck source=../bsponmpi.sh
. "$root/bench/bsponmpi.sh"
other=no
if [ -n "$BSPONMPI_PS" ]; then
    bsponmpi_build "$here/bsp_micro.c" "$bin/bsp_micro_bsponmpi" && other=yes
fi
secs=${SECONDS_PER_TEST:-0.5}
results=$bin/results.txt
: >"$results"
for P in ${PS:-2 16}; do
    r=1
    while [ "$r" -le "${ROUNDS:-3}" ]; do
        if [ "$ebsp" = yes ]; then
            (cd "$bin" && ./host_micro "$P" "$secs") | sed -n "s/^RESULT \([A-Za-z0-9_]*\) \([-0-9.e+]*\) .*/ebsp $P \1 \2/p" >>"$results"
        fi
        "$bin/bsp_micro" "$P" "$secs" | sed -n "s/^RESULT \([A-Za-z0-9_]*\) \([-0-9.e+]*\) .*/bsplib $P \1 \2/p" >>"$results"
        if [ "$other" = yes ] && case " ${BSPONMPI_PS} " in *" $P "*) true ;; *) false ;; esac; then
            bsponmpi_run "$P" "$secs" | sed -n "s/^RESULT \([A-Za-z0-9_]*\) \([-0-9.e+]*\) .*/bsponmpi $P \1 \2/p" >>"$results"
        fi
        r=$((r + 1))
    done
done
# medians per (P, metric, face), then one line per (P, metric)
sort -k2,2n -k3,3 -k1,1 -k4,4g "$results" | awk -v other="$([ "$other" = yes ] && echo 1)" '
    function flush() { if (n) { med[key] = v[int((n + 1) / 2)]; n = 0 } }
    { k = $2 " " $3 " " $1; if (k != key) { flush(); key = k; if (!($2 " " $3 in seen)) { seen[$2 " " $3] = 1; order[++m] = $2 " " $3 } } v[++n] = $4 }
    END {
        flush()
        printf "%-4s %-22s %14s %14s %8s", "P", "metric", "EBSP face", "BSPlib face", "ratio"
        if (other) printf " %14s %12s", "BSPonMPI", "BSPlib/it"
        printf "\n"
        for (i = 1; i <= m; i++) {
            split(order[i], a, " ")
            if (a[2] == "P") continue
            e = med[order[i] " ebsp"]; b = med[order[i] " bsplib"]; o = med[order[i] " bsponmpi"]
            ratio = (e != "" && e + 0 != 0) ? sprintf("%.2f", b / e) : "-"
            printf "%-4s %-22s %14s %14s %8s", a[1], a[2], (e == "" ? "-" : e), b, ratio
            # how many times better the BSPlib face is: rates up, times down
            better = "-"
            if (o != "" && o + 0 > 0 && b + 0 > 0)
                better = sprintf("%.2fx", a[2] ~ /(GBps|Mmsgps)$/ ? b / o : o / b)
            if (other) printf " %14s %12s", (o == "" ? "-" : o), better
            printf "\n"
        }
    }'
for P in ${PS:-2 16}; do
    "$bin/calls" "$P"
done
if [ "$REQUIRE" != no ]; then
    "$here/require.sh"
fi
