# libebsp: the Epiphany BSP platform emulated by a Go shared library.
PREFIX  ?= /usr/local
DESTDIR ?=
GO      ?= go
CC      ?= gcc
SONAME  := libebsp.so.1
LIB     := lib/libebsp.so
CFLAGS  ?= -O2 -Wall -Wextra
GOSRC   := $(shell find capi engine emesh env world faces sched -name '*.go' -o -name '*.c' -o -name '*.h' -o -name '*.S') $(wildcard include/*.h) go.mod capi/libebsp.map
# Go rebuilds a cgo package when the files in its folder change, not when a
# header it includes from another folder does (the faces include capi's
# faces.h): a checksum of every header in the C flags makes a changed header
# rebuild every cgo package.
HEADERS_SUM := $(shell cat $(sort $(wildcard capi/*.h sched/*.h world/*/*.h faces/*/*.h include/*.h)) | cksum | cut -d' ' -f1)
# -fno-optimize-sibling-calls: an API function that ends in a call to
# another keeps its frame, so a core's crash inside the library names the
# call it was in (capi/faults.c; go's #cgo lines do not accept the flag).
export CGO_CFLAGS := $(filter-out -DEBSP_HEADERS_SUM=% -fno-optimize-sibling-calls,$(or $(CGO_CFLAGS),-g -O2)) -fno-optimize-sibling-calls -DEBSP_HEADERS_SUM=$(HEADERS_SUM)
# The library exports the functions of include/*.h and nothing else (the Go
# runtime, the cgo glue and the shim's internals stay local): the version
# script lists them, gotests/abi_test.go checks it against the headers and
# the built library both ways.
EXPORTS   := --version-script=$(CURDIR)/capi/libebsp.map
GOLDFLAGS := -extldflags=-Wl,-soname,$(SONAME),$(EXPORTS)

.PHONY: all lib lib32 demo fuzz check stress stress-mpi test test-c32-beside-mpi test-stress test-tools test-go test-go32 test-c test-c-copy test-c32 test-mpi test-purego test-python test-shim test-asan test-install bench bench-core bench-comm bench-stream bench-shared bench-lqcd bench-bsplib bench-mpi bench-scale bench-qmp install clean vet vet32

all: lib

lib: $(LIB) lib/pkgconfig/ebsp.pc lib/pkgconfig/bsp.pc lib/pkgconfig/qmp.pc bin/ebspcc bin/ebsprun bin/ebsp-trace bin/bspcc bin/bsprun bin/qmp-config

$(LIB): $(GOSRC)
	@mkdir -p lib
	$(GO) build -buildmode=c-shared -trimpath \
		-ldflags='$(GOLDFLAGS)' -o lib/.build-$$$$.so ./capi && \
		mv lib/.build-$$$$.h lib/libebsp-go-exports.h && mv lib/.build-$$$$.so lib/$(SONAME)
	ln -sf $(SONAME) $(LIB)

lib/pkgconfig/%.pc: pkgconfig/%.pc.in
	@mkdir -p lib/pkgconfig
	sed -e 's|@PREFIX@|$(CURDIR)|; s|@LIBDIR@|$(CURDIR)/lib|; s|@INCLUDEDIR@|$(CURDIR)/include|' $< > $@

# The build and run wrappers, pointing into this tree (make install
# writes ones that point into PREFIX).
bin/ebspcc: tools/ebspcc.in
	@mkdir -p bin
	sed -e 's|@INCLUDEDIR@|$(CURDIR)/include|; s|@LIBDIR@|$(CURDIR)/lib|' $< > $@ && chmod +x $@

bin/ebsprun bin/ebsp-trace: bin/%: tools/%
	@mkdir -p bin
	cp $< $@ && chmod +x $@

# The wrappers as a user runs them: hello built with ebspcc, run with ebsprun.
test-tools: lib
	@rm -rf lib/tools-test && mkdir -p lib/tools-test
	bin/ebspcc --help | grep -q -- -kernel
	bin/ebsprun --help | grep -q -- --checks
	bin/ebspcc -Wall -Wextra examples/hello/host_hello.c -o lib/tools-test/host_hello
	cd lib/tools-test && ../../bin/ebspcc -kernel -Wall -Wextra ../../examples/hello/e_hello.c && test -f e_hello.elf
	bin/ebsprun --mesh 2x3 --checks strict lib/tools-test/host_hello | grep -c '^\$$[0-9][0-9]: Hello World' | grep -qx 6
	bin/ebsprun --mesh 2x3 --stats lib/tools-test/host_hello | grep -q '^ebsp stats: run 1, 6 cores, 1 supersteps'
	bin/ebsprun --mesh 2x3 --trace lib/tools-test/t.json lib/tools-test/host_hello >/dev/null && grep -q traceEvents lib/tools-test/t.json
	bin/ebsp-trace lib/tools-test/t.json -o lib/tools-test/t.html
	python3 -c 'import sys, xml.dom.minidom as x; s = open(sys.argv[1]).read(); \
		svg = x.parseString(s[s.index("<svg"):s.index("</svg>") + 6]); \
		assert len(svg.getElementsByTagName("rect")) == 12, "6 cores x (compute, bsp_end)"' lib/tools-test/t.html
	if command -v chromium >/dev/null; then chromium --headless --no-sandbox --screenshot=lib/tools-test/t.png \
		--window-size=1100,300 file://$(CURDIR)/lib/tools-test/t.html && test -s lib/tools-test/t.png; \
		else echo "tools test: chromium absent, trace page not rendered"; fi
	! bin/ebsprun --bogus lib/tools-test/host_hello 2>/dev/null
	@echo "tools test: ok"

# bspcc (compile and link a BSPlib program) and bsprun, for the tree in place.
bin/bspcc bin/bsprun: bin/%: tools/%.in
	@mkdir -p bin
	sed -e 's|@LIBDIR@|$(CURDIR)/lib|; s|@INCLUDEDIR@|$(CURDIR)/include|' $< > $@ && chmod 755 $@

# qmp-config (QMP's build-flags tool) for the tree in place.
bin/qmp-config: tools/qmp-config.in
	@mkdir -p bin
	sed -e 's|@PREFIX@|$(CURDIR)|; s|@LIBDIR@|$(CURDIR)/lib|; s|@INCLUDEDIR@|$(CURDIR)/include|' $< > $@ && chmod 755 $@

# The 32-bit build, like the board's host and cores (pointers fit in int and
# unsigned): Go for 386 and gcc -m32 (Debian: gcc-multilib). Its ebsp.pc
# adds -m32, so pkg-config builds hosts and kernels for it.
LIB32   := lib32/libebsp.so
GO32ENV := GOARCH=386 CGO_ENABLED=1 CC="$(CC) -m32"

lib32: $(LIB32) lib32/pkgconfig/ebsp.pc

$(LIB32): $(GOSRC)
	@mkdir -p lib32
	$(GO32ENV) $(GO) build -buildmode=c-shared -trimpath \
		-ldflags='$(GOLDFLAGS)' -o lib32/.build-$$$$.so ./capi && \
		mv lib32/.build-$$$$.h lib32/libebsp-go-exports.h && mv lib32/.build-$$$$.so lib32/$(SONAME)
	ln -sf $(SONAME) $(LIB32)

lib32/pkgconfig/ebsp.pc: pkgconfig/ebsp.pc.in
	@mkdir -p lib32/pkgconfig
	sed -e 's|@PREFIX@|$(CURDIR)|; s|@LIBDIR@|$(CURDIR)/lib32|; s|@INCLUDEDIR@|$(CURDIR)/include|' \
		-e 's|^Cflags: |Cflags: -m32 |; s|^Libs: |Libs: -m32 |' $< > $@

# The hello example: host and kernel built by the host gcc, 16 cores.
demo: lib
	$(MAKE) -C examples/hello run

vet:
	$(GO) vet ./...

vet32:
	$(GO32ENV) $(GO) vet ./...

# Whether this machine runs 32-bit programs (tools/can-run-m32). Where its
# kernel cannot (no IA32 emulation: "exec format error"), the tests that run
# 32-bit code say so and are skipped; lib32 is still built, vetted and its
# exports checked.
M32_RUNS := tools/can-run-m32 "$(CC)"
M32_SKIPPED = echo "$@: SKIPPED: this machine cannot run 32-bit programs (tools/can-run-m32)"

# The edit-test loop: vet, the shim, unit tests (no race detector) and the
# C tests against the normal build, under the default scheduler only (make
# test runs them under both, and everything else).
check: lib lib32 vet test-shim
	$(GO) test -count=1 ./engine/... ./emesh/... ./env/... ./faces/lqcd/grid
	$(GO) test -count=1 ./engine/ -transport=copy
	EBSP_CTEST_SCHED=coro $(GO) test -count=1 -skip 'TestBSPlibUnderMPI|TestMPI' ./ctests/... ./gotests/...

test: lib lib32 vet vet32 test-shim test-install test-tools test-go test-go32 test-c test-c-copy test-c32-beside-mpi test-stress test-purego test-python test-asan

# test-mpi spends most of its time waiting (mpirun starting ranks, the
# watchdog and a cut-off host's timeouts: a tenth of its wall time is CPU),
# so make test runs it beside test-c32, each target's output kept together.
test-c32-beside-mpi: lib lib32
	$(MAKE) -j2 --output-sync=target test-c32 test-mpi

# The C tests whose outcome depends on the order in which the cores run (a
# `stress` file in their directory says why) run STRESS_RUNS times under
# each scheduler setting: coro, coro with EBSP_REST=1 and with EBSP_REST=0,
# and threads. Each is built once; the failed runs are counted per test and
# setting, and any failure fails the target. Local directory mode (cd
# ctests): go test then prints the counts of a passing run too.
STRESS_RUNS ?= 200
stress: lib
	cd ctests && EBSP_CTEST_REPEAT=$(STRESS_RUNS) $(GO) test -count=1 -timeout 0 -run '^(TestStress|TestThreadIdentity|TestNestedSections)$$'

# The BSPlib programs of TestMPIStress under mpirun, STRESS_RUNS times in
# each layout and scheduler (not part of make test: ~10 s per run), and the
# ends of a job of TestMPIEndStress (bsp_abort, exit, deadlock, an EBSP
# host refused) STRESS_RUNS times each: hangs, mpirun crashes, stray lines.
# The MPI tests that make test runs in one layout per case (the conform_*
# and example_* programs, the misuse cases, ranks ending early, the ends of
# a job, wild registrations at one check level) run once in every layout
# (EBSP_CTEST_LAYOUTS=all).
stress-mpi: lib
	@command -v mpirun >/dev/null 2>&1 || echo "stress-mpi: SKIPPED: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"
	cd ctests && EBSP_CTEST_LAYOUTS=all EBSP_CTEST_REPEAT=$(STRESS_RUNS) $(GO) test -count=1 -timeout 0 -v -run '^(TestMPI(End|SendOrder)?Stress|TestMPIQMPPrograms|TestMPILqcdDeadlock|TestBSPlibUnderMPI|TestMPIMisuse|TestMPIRanksEndEarly|TestMPIJobEnds|TestMPIWildRegistration)$$' | grep -v '^=== RUN'

# make stress, short: part of make test.
test-stress: lib
	$(MAKE) -s stress STRESS_RUNS=5

# The C shim on its own, strict: C99 with every warning an error.
test-shim:
	$(CC) -std=c99 -Wall -Wextra -Werror -fsyntax-only -Iinclude capi/*.c sched/*.c emesh/lowmem/*.c faces/*/*.c world/mpi/mpi.c world/mpi/msg.c
	for h in include/*.h; do echo "#include \"$$h\"" | $(CC) -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I. -Iinclude -x c - || exit 1; done
	# bsp.h beside a header of MulticoreBSP's with the same enums under its guard, in both orders
	printf '#include "bsp.h"\n#include "mcbsp_guard.h"\n' | $(CC) -std=c99 -Wall -Wextra -Werror -fsyntax-only -Iinclude -Ictests/identity -x c -
	printf '#include "mcbsp_guard.h"\n#include "bsp.h"\n' | $(CC) -std=c99 -Wall -Wextra -Werror -fsyntax-only -Iinclude -Ictests/identity -x c -

# The whole library (Go + shim) built with AddressSanitizer, run by the C
# tests whose hosts are built with it too. The signal tests are skipped:
# ASan owns SIGSEGV there (the crash* ones end in a signal; mem_fixed_address
# needs the library's handler). It exports what the normal build does, but has
# no soname: the tests link it as lib/asan/libebsp.so, with no .so.1 beside.
# Threads only: ASan cannot follow the coroutine scheduler's stack switches,
# so that build has none.
ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer
test-asan:
	@mkdir -p lib/asan
	CGO_CFLAGS="$(ASAN_FLAGS) -g -O1 -DEBSP_HEADERS_SUM=$(HEADERS_SUM)" CGO_LDFLAGS="-fsanitize=address" \
		$(GO) build -buildmode=c-shared -ldflags='-extldflags=-Wl,$(EXPORTS)' -o lib/asan/libebsp.so ./capi
	EBSP_CTEST_LIBDIR=lib/asan EBSP_CTEST_SCHED=threads EBSP_CTEST_CFLAGS="$(ASAN_FLAGS)" ASAN_OPTIONS=detect_leaks=1 \
		$(GO) test -count=1 -skip 'TestCPrograms/(crash.*|watchdog|cycles|mem_fixed_address)$$' ./ctests/...

# make install into a scratch prefix, then build and run hello the way the
# README tells users to: pkg-config for the host, gcc -shared for the kernel.
test-install: lib
	@rm -rf lib/install-test && mkdir -p lib/install-test/bin
	$(MAKE) -s install PREFIX=/usr DESTDIR=$(CURDIR)/lib/install-test/root
	test -L lib/install-test/root/usr/lib/libebsp.so
	test "$$(readelf -d lib/install-test/root/usr/lib/libebsp.so.1 | grep -o 'libebsp.so.1')" = libebsp.so.1
	sed 's|=/usr|=$(CURDIR)/lib/install-test/root/usr|' lib/install-test/root/usr/lib/pkgconfig/ebsp.pc \
		> lib/install-test/ebsp.pc
	$(CC) $(CFLAGS) examples/hello/host_hello.c -o lib/install-test/bin/host_hello \
		$$(PKG_CONFIG_PATH=lib/install-test pkg-config --cflags --libs ebsp)
	$(CC) $(CFLAGS) -shared -fPIC $$(PKG_CONFIG_PATH=lib/install-test pkg-config --cflags ebsp) \
		examples/hello/e_hello.c -o lib/install-test/bin/e_hello.elf
	lib/install-test/bin/host_hello | grep -c '^\$$[0-9][0-9]: Hello World' | grep -qx 16
	sed 's|=/usr|=$(CURDIR)/lib/install-test/root/usr|' lib/install-test/root/usr/lib/pkgconfig/bsp.pc \
		> lib/install-test/bsp.pc
	$(CC) $(CFLAGS) examples/bsplib/hello.c -o lib/install-test/bin/bsp_hello \
		$$(PKG_CONFIG_PATH=lib/install-test pkg-config --cflags --libs bsp)
	lib/install-test/bin/bsp_hello | grep -c '^Hello from' | grep -qx 16
	sed 's|/usr/|$(CURDIR)/lib/install-test/root/usr/|' lib/install-test/root/usr/bin/bspcc > lib/install-test/bspcc
	sh lib/install-test/bspcc $(CFLAGS) --compat examples/bsplib/hello.c -o lib/install-test/bin/bsp_hello_compat
	EBSP_MESH=1x3 lib/install-test/bin/bsp_hello_compat | grep -c '^Hello from' | grep -qx 3
	test "$$(sh lib/install-test/root/usr/bin/bsprun -n 12 sh -c 'echo $$EBSP_MESH')" = 3x4
	@echo "install test: ok"

# Fuzz the engine (registrations, messages, streams) and the memory
# allocator, each target for FUZZTIME (not part of make test: go test
# already runs the seed corpora). Failing inputs are saved under
# <package>/testdata/fuzz/ and become seeds.
FUZZTIME ?= 30s
FUZZ_TARGETS := engine:FuzzRegistrations engine:FuzzMessages engine:FuzzStreamCurrent \
	engine:FuzzStreamLegacy engine:FuzzStreamCorrupt emesh:FuzzArena
fuzz:
	for t in $(FUZZ_TARGETS); do \
		$(GO) test -run='^$$' -fuzz="^$${t#*:}$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=10s ./$${t%%:*}/ || exit 1; \
	done

# The engine's tests run twice: over shared memory, and over a transport
# that copies every block between cores as a message-passing one would.
test-go:
	$(GO) test -race -count=1 ./engine/... ./emesh/... ./env/... ./faces/lqcd/grid
	$(GO) test -race -count=1 ./engine/ -transport=copy

# The engine's unit tests as 386 code (no race detector there).
test-go32:
	if $(M32_RUNS); then GOARCH=386 $(GO) test -count=1 ./engine/... ./emesh/... ./env/... ./faces/lqcd/grid; else $(M32_SKIPPED); fi

# The C tests, each under both schedulers (EBSP_SCHED=threads and coro);
# those with an `m32` file are built with -m32 against lib32. The MPI
# tests are test-mpi's.
test-c: lib lib32
	$(GO) test -count=1 -skip 'TestBSPlibUnderMPI|TestMPI' ./ctests/...

# BSPlib programs under Open MPI's mpirun (ctests/mpi_test.go): the
# conform_* and example_* programs in a layout of ranks each, bsp_abort and
# a crash on one rank, bsprun --ranks. They skip themselves without mpirun
# (apt-get install openmpi-bin libopenmpi-dev), and go test hides a skip:
# without mpirun this target says so on a line of its own.
test-mpi: lib
	@command -v mpirun >/dev/null 2>&1 || echo "test-mpi: SKIPPED: mpirun not found, the BSPlib programs did not run under MPI (apt-get install openmpi-bin libopenmpi-dev)"
	$(GO) test -count=1 -run 'TestBSPlibUnderMPI|TestMPI' ./ctests/

# Every C test in the test world that copies each block between cores, as
# a world of several processes does (EBSP_WORLD=copy: no direct requests).
test-c-copy: lib lib32
	EBSP_WORLD=copy EBSP_CTEST_SCHED=coro $(GO) test -count=1 -skip 'TestBSPlibUnderMPI|TestMPI' ./ctests/...

# Every C test again, built with -m32 against lib32, but for cycles (1000
# runs in one process: leaks are the 64-bit run's business, and it is the
# slowest test) and mem_fixed_address (fixed local addresses are reached on
# x86-64 only: emesh/lowmem/lowmem.c). Threads only: the 386 build has no coroutine switch.
test-c32: lib32
	if $(M32_RUNS); then EBSP_CTEST_M32=1 EBSP_CTEST_SCHED=threads $(GO) test -count=1 -skip 'TestCPrograms/(cycles|mem_fixed_address)$$' ./ctests/...; \
		else $(M32_SKIPPED); fi

test-purego: lib
	$(GO) test -count=1 ./gotests/...

test-python: lib
	python3 python/test_ebsp.py

bench: bench-core bench-comm bench-stream bench-shared bench-bsplib

bench-core: lib
	$(MAKE) -s -C bench/core run

# ../shared/bench, the yardstick the other BSP libraries are measured with,
# at 2, 16, 64 and 1024 cores (LAUNCHES=3: medians and spreads; SIZES, SCHEDS).
bench-shared: lib
	$(MAKE) -s -C bench/shared run

# The communication engine at 2, 16 and 64 cores.
bench-comm: lib
	$(MAKE) -s -C bench/comm run

# The micro-benchmark of ../shared/bench in its EBSP form and in BSPlib form
# (bench/bsplib/bsp_micro.c), alternately in one session: medians side by side;
# then issue 32's requirements against references in the same run
# (bench/bsplib/require.sh: BASE_REV, MCBSP_DIR, BSPONMPI_DIR, NEW_ROOT, REQUIRE).
bench-bsplib: lib
	bench/bsplib/run.sh

# BSPlib programs across MPI ranks (2 x 1, 2 x 8, TCP), with Open MPI's own
# barrier and all-to-all measured in the same run (LAYOUTS, ROUNDS).
bench-mpi: lib
	bench/mpi/run.sh

# Stream throughput (MB/s down and up, with and without preload).
bench-stream: lib
	$(MAKE) -C bench/stream run

# The LQCD message API (include/lqcd_msg.h): 8-direction halo exchange (1 KiB
# and 64 KiB) and sumDouble on 16 and 64 cores, next to Open MPI's persistent
# requests when mpicc is installed. Not part of `make bench` or `make test`.
bench-lqcd: lib
	$(MAKE) -s -C bench/lqcd run

# QMP (include/qmp.h): halo exchange (8 B, 1 KiB, 64 KiB per face) and
# QMP_sum_double / _array(1000), our face in 1 x 16 and 2 x 8 against QMP over
# MPI on 16 ranks (QMP_DIR: a QMP built outside this tree), and our LQCD
# sumDouble: bench/qmp/run.sh. Not part of `make bench` or `make test`.
bench-qmp: lib
	bench/qmp/run.sh

# Costs that must grow linearly: the time per LQCD declaration (one process)
# and per BSMP message across 2 MPI ranks (EBSP_MPI_BLOCK=64 and the default)
# at n and 16n items, and the ratio of the two (near 1; 16 would be quadratic).
bench-scale: lib
	bench/scale/run.sh

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/ebsp $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	sed -e 's|@INCLUDEDIR@|$(PREFIX)/include/ebsp|; s|@LIBDIR@|$(PREFIX)/lib|' tools/ebspcc.in > $(DESTDIR)$(PREFIX)/bin/ebspcc
	chmod 755 $(DESTDIR)$(PREFIX)/bin/ebspcc
	install -m 755 tools/ebsprun tools/ebsp-trace $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/man/ebspcc.1 docs/man/ebsprun.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 755 lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libebsp.so
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/ebsp/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(PREFIX)/lib|; s|@INCLUDEDIR@|$(PREFIX)/include/ebsp|' \
		pkgconfig/ebsp.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ebsp.pc
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(PREFIX)/lib|; s|@INCLUDEDIR@|$(PREFIX)/include/ebsp|' \
		pkgconfig/bsp.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/bsp.pc
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(PREFIX)/lib|; s|@INCLUDEDIR@|$(PREFIX)/include/ebsp|' \
		pkgconfig/qmp.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/qmp.pc
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(PREFIX)/lib|; s|@INCLUDEDIR@|$(PREFIX)/include/ebsp|' \
		tools/qmp-config.in > $(DESTDIR)$(PREFIX)/bin/qmp-config && chmod 755 $(DESTDIR)$(PREFIX)/bin/qmp-config
	for t in bspcc bsprun; do \
		sed -e 's|@LIBDIR@|$(PREFIX)/lib|; s|@INCLUDEDIR@|$(PREFIX)/include/ebsp|' tools/$$t.in \
			> $(DESTDIR)$(PREFIX)/bin/$$t && chmod 755 $(DESTDIR)$(PREFIX)/bin/$$t || exit 1; \
	done

clean:
	rm -rf lib lib32 bin
	$(MAKE) -C examples/hello clean
	$(MAKE) -C examples/dotprod clean
	$(MAKE) -C examples/matvec clean
	$(MAKE) -C bench/core clean
	$(MAKE) -C bench/comm clean
	$(MAKE) -C examples/stream_dot clean
	$(MAKE) -C examples/bsplib clean
	rm -rf bench/bsplib/bin bench/qmp/bin
	$(MAKE) -C bench/stream clean
	$(MAKE) -C bench/shared clean
	$(MAKE) -C examples/lattice clean
	$(MAKE) -C bench/lqcd clean
