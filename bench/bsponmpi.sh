# BSPonMPI (BSPlib over MPI, one process per BSP process) beside libebsp in
# the same run, when BSPONMPI_DIR names a build of it (its include/bsp.h and
# lib/libbsponmpi.a): sourced by bench/bsplib/run.sh and bench/mpi/run.sh.
# BSPonMPI is not part of this repository; build it where you like.
#
#   bsponmpi_build SRC BIN      builds BIN from the BSPlib program SRC
#                               (bench/bsplib/bsp_micro.c); 0 when built
#   bsponmpi_run P SECS [BTL] [TESTS]
#                               runs BIN on P ranks (its arguments: P SECS,
#                               and 1024 TESTS when TESTS is given: which of
#                               bsp_micro's tests), printing its RESULT and
#                               DETAIL lines

bsponmpi_build() {
    [ -n "$BSPONMPI_DIR" ] || return 1
    if [ ! -f "$BSPONMPI_DIR/include/bsp.h" ] || [ ! -f "$BSPONMPI_DIR/lib/libbsponmpi.a" ] ||
        ! command -v mpicxx >/dev/null; then
        echo "(BSPONMPI_DIR=$BSPONMPI_DIR: no include/bsp.h, lib/libbsponmpi.a or mpicxx; BSPonMPI is skipped)"
        return 1
    fi
    bsponmpi_bin=$2
    # BSPlib 1998 types: no bsp_nprocs_t, bsp_qsize takes bsp_size_t
    mpicc -std=gnu99 -O2 -DBSP_MICRO_BSPLIB1998 -I"$BSPONMPI_DIR/include" -c "$1" -o "$2.o" &&
        mpicxx -O2 "$2.o" "$BSPONMPI_DIR/lib/libbsponmpi.a" -o "$2"
}

bsponmpi_run() {
    osc=""
    # over TCP alone, Open MPI 4.1 finds no one-sided component for its windows
    case "$3" in *tcp*) osc="--mca osc pt2pt" ;; esac
    opts="--oversubscribe"
    [ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root"
    # shellcheck disable=SC2086
    if [ -n "$4" ]; then
        mpirun $opts ${3:+--mca btl $3} $osc -n "$1" "$bsponmpi_bin" "$1" "$2" 1024 "$4" | grep -E '^(RESULT|DETAIL)'
    else
        mpirun $opts ${3:+--mca btl $3} $osc -n "$1" "$bsponmpi_bin" "$1" "$2" | grep -E '^(RESULT|DETAIL)'
    fi
}
