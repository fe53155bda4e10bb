#!/bin/sh
# Issue 32's speed requirements for the BSPlib face, each measured against
# its reference in the same run: bsp_micro.c (one test per launch) on
# libebsp and on the reference, alternately (the order flips every round),
# ROUNDS rounds; prints the medians and the median of the per-round ratios.
#
#   1. empty bsp_sync at P=16: libebsp / libebsp at BASE_REV     <= 1.5
#   2. empty bsp_sync at P=16: MulticoreBSP for C / libebsp      >= 100
#   3. 16-byte bsp_send at P=2: libebsp / the better of
#      MulticoreBSP for C (2 threads) and BSPonMPI (2 ranks)     >= 2
#   4. empty superstep under mpirun -n 2 -x EBSP_RANK_CORES=8:
#      BSPonMPI on 16 ranks / libebsp                            >= 20
#
#   bench/bsplib/require.sh        (after make lib; run.sh runs it last)
#   NEW_ROOT=tree      the libebsp measured: a tree after `make lib` (its
#                      bin/bspcc links with an rpath to its lib/); default
#                      this tree (LIBEBSP_ROOT is read too)
#   BASE_REV=74722e0   the baseline (the BSPlib face before per-core TLS),
#                      built by `make lib` in a temporary git worktree
#                      (~30 s; KEEP_BASE=1 keeps it for the next run)
#   BASE_ROOT=tree     a built baseline tree instead of BASE_REV
#   MCBSP_DIR=path     a build of MulticoreBSP for C 2.0 (its include/bsp.h,
#                      include/mcbsp-affinity.h, lib/libmcbsp*.a) with its
#                      blocking barrier (MCBSP_USE_MUTEXES; its performance
#                      build spins instead); not part of this repository
#   MCBSP_SPIN_DIR=path  optional: its spinning build as well, a further
#                      reference of the send line (the better one counts)
#   BSPONMPI_DIR=path  a build of BSPonMPI (../bsponmpi.sh)
#   ROUNDS=3 SECONDS_PER_TEST=0.5
# A line whose reference is missing (no MCBSP_DIR, no mpirun, ...) says
# "skipped:" and why.
set -e
start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
new=$(cd "${NEW_ROOT:-${LIBEBSP_ROOT:-$root}}" && pwd)
bin=$here/bin/require
mkdir -p "$bin"
rounds=${ROUNDS:-3}
secs=${SECONDS_PER_TEST:-0.5}
rev=${BASE_REV:-74722e0}
opts="--oversubscribe"
[ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root"

if [ ! -x "$new/bin/bspcc" ] || [ ! -f "$new/lib/libebsp.so.1" ]; then
    echo "require.sh: $new has no bin/bspcc or lib/libebsp.so.1: run make lib there" >&2
    exit 1
fi
stale=$(cd "$new" && find capi engine emesh env world faces sched include -newer lib/libebsp.so.1 \
    \( -name '*.go' -o -name '*.c' -o -name '*.h' -o -name '*.s' -o -name '*.S' \) 2>/dev/null | head -3 | tr '\n' ' ')
[ -z "$stale" ] || echo "(warning: $new/lib/libebsp.so.1 is older than $stale: make lib there first)"

# ------------------------------------------------------------- builds
skip_base="" skip_mcbsp="" skip_bsponmpi="" skip_mpi=""
"$new/bin/bspcc" -std=gnu99 -O2 "$here/bsp_micro.c" -o "$bin/bsp_micro_new"

base_tmp=""
cleanup() {
    if [ -n "$base_tmp" ] && [ -z "$KEEP_BASE" ]; then
        git -C "$root" worktree remove --force "$base_tmp" 2>/dev/null || rm -rf "$base_tmp"
        [ -n "$skip_base" ] || rm -f "$base_tmp.log"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -n "$BASE_ROOT" ]; then
    base=$(cd "$BASE_ROOT" && pwd)
    base_name=$(git -C "$base" rev-parse --short HEAD 2>/dev/null || basename "$base")
else
    base=""
    if full=$(git -C "$root" rev-parse --verify -q "$rev^{commit}"); then
        base_name=$(git -C "$root" rev-parse --short "$full")
        dir=${TMPDIR:-/tmp}/libebsp-base-$base_name
        if [ -f "$dir/lib/libebsp.so.1" ] && [ -x "$dir/bin/bspcc" ]; then
            echo "(baseline $base_name: reusing $dir)"
        else
            git -C "$root" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
            git -C "$root" worktree prune
            echo "(baseline $base_name: make lib in a temporary worktree $dir, log $dir.log)"
            git -C "$root" worktree add -q --detach "$dir" "$full"
            [ -n "$KEEP_BASE" ] || base_tmp=$dir
            make -C "$dir" lib >"$dir.log" 2>&1 || skip_base="skipped: make lib failed at $base_name (see $dir.log)"
        fi
        [ -n "$skip_base" ] || base=$dir
    else
        skip_base="skipped: BASE_REV=$rev is no commit of $root"
        base_name=$rev
    fi
fi
if [ -n "$base" ]; then
    "$base/bin/bspcc" -std=gnu99 -O2 "$here/bsp_micro.c" -o "$bin/bsp_micro_base" ||
        skip_base="skipped: bsp_micro.c did not build against $base_name"
fi

# mcbsp_build DIR BIN: prints why not, if it does not build
mcbsp_build() {
    mcbsp_lib=$(ls "$1"/lib/libmcbsp*.a 2>/dev/null | head -1)
    if [ ! -f "$1/include/bsp.h" ] || [ -z "$mcbsp_lib" ]; then
        echo "skipped: $1 has no include/bsp.h or lib/libmcbsp*.a"
    elif ! gcc -std=gnu99 -O2 -DBSP_MICRO_MCBSP -I"$1/include" "$here/bsp_micro.c" \
        -o "$2" "$mcbsp_lib" -lpthread -lrt -lm >&2; then
        echo "skipped: bsp_micro.c did not build against $1"
    fi
}
if [ -z "$MCBSP_DIR" ]; then
    skip_mcbsp="skipped: no MCBSP_DIR (a build of MulticoreBSP for C 2.0: include/bsp.h, lib/libmcbsp*.a)"
else
    skip_mcbsp=$(mcbsp_build "$MCBSP_DIR" "$bin/bsp_micro_mcbsp")
fi
skip_spin="no MCBSP_SPIN_DIR"
[ -z "$MCBSP_SPIN_DIR" ] || skip_spin=$(mcbsp_build "$MCBSP_SPIN_DIR" "$bin/bsp_micro_mcbsp_spin")
[ -z "$skip_spin" ] || [ -z "$MCBSP_SPIN_DIR" ] || echo "(MCBSP_SPIN_DIR: $skip_spin)"
# MulticoreBSP reads machine.info from the working directory: an empty one
mkdir -p "$bin/mcbsp-cwd"
rm -f "$bin/mcbsp-cwd/machine.info"

# shellcheck source=../bsponmpi.sh
. "$root/bench/bsponmpi.sh"
if [ -z "$BSPONMPI_DIR" ]; then
    skip_bsponmpi="skipped: no BSPONMPI_DIR (a build of BSPonMPI: include/bsp.h, lib/libbsponmpi.a)"
elif ! bsponmpi_build "$here/bsp_micro.c" "$bin/bsp_micro_bsponmpi"; then
    skip_bsponmpi="skipped: BSPonMPI did not build from BSPONMPI_DIR=$BSPONMPI_DIR"
fi
if ! command -v mpirun >/dev/null; then
    skip_mpi="skipped: mpirun not found (apt-get install openmpi-bin)"
elif [ -n "$skip_bsponmpi" ]; then
    skip_mpi=$skip_bsponmpi
fi

# --------------------------------------------------------------- runs
results=$bin/results.txt
: >"$results"
# one launch: who metric command...; appends "round who metric value"
one() {
    who=$1 metric=$2
    shift 2
    v=$("$@" 2>/dev/null | sed -n "s/^RESULT $metric \([-0-9.e+]*\) .*/\1/p" | head -1) || true
    if [ -n "$v" ]; then
        echo "$r $who $metric $v" >>"$results"
    else
        echo "(round $r: $who $metric: no result)"
    fi
}
sync_new() { one new sync_us "$bin/bsp_micro_new" 16 "$secs" 1024 sync; }
sync_base() { [ -n "$skip_base" ] || one base sync_us "$bin/bsp_micro_base" 16 "$secs" 1024 sync; }
sync_mcbsp() { [ -n "$skip_mcbsp" ] || (cd "$bin/mcbsp-cwd" && one mcbsp sync_us "$bin/bsp_micro_mcbsp" 16 "$secs" 1024 sync); }
send_new() { one new send16_Mmsgps "$bin/bsp_micro_new" 2 "$secs" 1024 send; }
send_mcbsp() { [ -n "$skip_mcbsp" ] || (cd "$bin/mcbsp-cwd" && one mcbsp send16_Mmsgps "$bin/bsp_micro_mcbsp" 2 "$secs" 1024 send); }
send_spin() { [ -n "$skip_spin" ] || (cd "$bin/mcbsp-cwd" && one mcbspspin send16_Mmsgps "$bin/bsp_micro_mcbsp_spin" 2 "$secs" 1024 send); }
send_bsponmpi() { [ -n "$skip_bsponmpi" ] || one bsponmpi send16_Mmsgps bsponmpi_run 2 "$secs" "" send; }
# shellcheck disable=SC2086
mpi_new() { [ -n "$skip_mpi" ] || one mpinew sync_us mpirun $opts -n 2 -x EBSP_RANK_CORES=8 "$bin/bsp_micro_new" 16 "$secs" 1024 sync; }
mpi_bsponmpi() { [ -n "$skip_mpi" ] || one mpibsponmpi sync_us bsponmpi_run 16 "$secs" "" sync; }
r=1
while [ "$r" -le "$rounds" ]; do
    # libebsp between its references, the order reversed every other round
    if [ $((r % 2)) = 1 ]; then
        sync_base; sync_new; sync_mcbsp
        send_spin; send_mcbsp; send_new; send_bsponmpi
        mpi_new; mpi_bsponmpi
    else
        sync_mcbsp; sync_new; sync_base
        send_bsponmpi; send_new; send_mcbsp; send_spin
        mpi_bsponmpi; mpi_new
    fi
    r=$((r + 1))
done

# -------------------------------------------------------------- table
# line NAME UNIT WHO METRIC REF-WHOS REF-LABELS DIRECTION BOUND SKIP
#   DIRECTION: le (new/ref <= BOUND, times), ge_rate (new/ref >= BOUND,
#   rates), ge_time (ref/new >= BOUND, times); with several references the
#   better one (by median) is the reference
line() {
    awk -v name="$1" -v unit="$2" -v who="$3" -v metric="$4" -v refs="$5" -v labels="$6" \
        -v dir="$7" -v bound="$8" -v skip="$9" '
        function median(a, n,    i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n ? a[int((n + 1) / 2)] : ""
        }
        $3 == metric { v[$2, $1] = $4; rounds[$1] = 1 }
        END {
            nref = split(refs, rw, " "); split(labels, rl, ",")
            n = 0; for (r in rounds) if ((who, r) in v) nv[++n] = v[who, r]
            mn = median(nv, n)
            best = 0
            for (k = 1; k <= nref; k++) {
                m = 0; delete x
                for (r in rounds) if ((rw[k], r) in v) x[++m] = v[rw[k], r]
                if (!m) continue
                md = median(x, m)
                if (!best || (dir == "ge_rate" ? md > bmed : md < bmed)) { best = k; bmed = md }
            }
            req = (dir == "le" ? "libebsp/ref <= " : dir == "ge_rate" ? "libebsp/ref >= " : "ref/libebsp >= ") bound
            if (mn == "" || !best) {
                why = skip != "" ? skip : (mn == "" ? "skipped: libebsp gave no result" : "skipped: the reference gave no result")
                printf "%-44s %10s %30s %9s %-20s %s\n", name " (" unit ")", (mn == "" ? "-" : sprintf("%.4g", mn)), "-", "-", req, why
                exit
            }
            m = 0; delete q
            for (r in rounds) if ((who, r) in v && (rw[best], r) in v) {
                a = v[who, r]; b = v[rw[best], r]
                q[++m] = dir == "ge_time" ? b / a : a / b
            }
            ratio = median(q, m)
            pass = dir == "le" ? ratio <= bound : ratio >= bound
            printf "%-44s %10.4g %30s %9.3g %-20s %s\n", name " (" unit ")", mn,
                sprintf("%.4g", bmed) " " rl[best], ratio, req, pass ? "PASS" : "FAIL"
        }' "$results"
}
mcbsp_label="MulticoreBSP"
echo "== issue 32: libebsp $new against references in the same run; medians of $rounds rounds, alternately; ratio: median of the per-round ratios"
printf "%-44s %10s %30s %9s %-20s %s\n" metric libebsp reference ratio requirement result
line "empty bsp_sync, P=16" us new sync_us base "base $base_name" le 1.5 "$skip_base"
line "empty bsp_sync, P=16" us new sync_us mcbsp "$mcbsp_label" ge_time 100 "$skip_mcbsp"
send_skip=""
[ -n "$skip_mcbsp" ] && [ -n "$skip_bsponmpi" ] && send_skip="$skip_mcbsp; $skip_bsponmpi"
line "bsp_send 16 B, P=2" "Mmsg/s per core" new send16_Mmsgps "mcbsp mcbspspin bsponmpi" \
    "$mcbsp_label,MulticoreBSP spin,BSPonMPI" ge_rate 2 "$send_skip"
line "empty superstep, mpirun -n 2 x 8 cores" us mpinew sync_us mpibsponmpi "BSPonMPI 16 ranks" ge_time 20 "$skip_mpi"
echo "(require.sh: $(($(date +%s) - start)) s)"
