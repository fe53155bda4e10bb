# libebsp: the Epiphany BSP platform emulated by a Go shared library.
PREFIX  ?= /usr/local
DESTDIR ?=
GO      ?= go
CC      ?= gcc
SONAME  := libebsp.so.1
LIB     := lib/libebsp.so
CFLAGS  ?= -O2 -Wall -Wextra
GOSRC   := $(shell find capi runtime emesh -name '*.go' -o -name '*.c' -o -name '*.h') $(wildcard include/*.h) go.mod

.PHONY: all lib demo test test-go test-c test-purego test-python bench bench-stream install clean vet

all: lib

lib: $(LIB) lib/pkgconfig/ebsp.pc

$(LIB): $(GOSRC)
	@mkdir -p lib
	$(GO) build -buildmode=c-shared -trimpath \
		-ldflags='-extldflags=-Wl,-soname,$(SONAME)' -o lib/.build-$$$$.so ./capi && \
		mv lib/.build-$$$$.h lib/libebsp-go-exports.h && mv lib/.build-$$$$.so lib/$(SONAME)
	ln -sf $(SONAME) $(LIB)

lib/pkgconfig/ebsp.pc: pkgconfig/ebsp.pc.in
	@mkdir -p lib/pkgconfig
	sed -e 's|@PREFIX@|$(CURDIR)|; s|@LIBDIR@|$(CURDIR)/lib|; s|@INCLUDEDIR@|$(CURDIR)/include|' $< > $@

# The hello example: host and kernel built by the host gcc, 16 cores.
demo: lib
	$(MAKE) -C examples/hello run

vet:
	$(GO) vet ./...

test: lib vet test-go test-c test-purego test-python

test-go:
	$(GO) test -race -count=1 ./runtime/... ./emesh/...

test-c: lib
	$(GO) test -count=1 ./ctests/...

test-purego: lib
	$(GO) test -count=1 ./gotests/...

test-python: lib
	python3 python/test_ebsp.py

bench: lib
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./gotests/...

# Stream throughput (MB/s down and up, with and without preload).
bench-stream: lib
	$(MAKE) -C bench/stream run

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/ebsp $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libebsp.so
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/ebsp/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(PREFIX)/lib|; s|@INCLUDEDIR@|$(PREFIX)/include/ebsp|' \
		pkgconfig/ebsp.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ebsp.pc

clean:
	rm -rf lib
	$(MAKE) -C examples/hello clean
	$(MAKE) -C examples/stream_dot clean
	$(MAKE) -C bench/stream clean
