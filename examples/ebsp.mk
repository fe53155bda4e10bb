# Shared build rules of the example and benchmark programs. An EBSP project
# builds both halves with the host gcc:
#   host:   gcc host_x.c -o host_x $(pkg-config --cflags --libs ebsp)
#   kernel: gcc -shared -fPIC $(pkg-config --cflags ebsp) e_x.c -o e_x.elf
# A program's Makefile sets HOST (the host program, without .c) and KERNELS
# (the kernels, without .c), optionally DEPS (extra prerequisites such as a
# shared header), includes this file and adds its own `run` rule.
ROOT   ?= ../..
CC     ?= gcc
CFLAGS ?= -O2 -Wall -Wextra -std=gnu99
# -funsigned-char: char is unsigned on the board (ARM host, Epiphany cores).
EBSP_CFLAGS := -I$(ROOT)/include -funsigned-char
EBSP_LIBS   := -L$(ROOT)/lib -Wl,-rpath,$(abspath $(ROOT))/lib -lebsp -lm

all: bin/$(HOST) $(KERNELS:%=bin/%.elf)

bin/$(HOST): $(HOST).c $(DEPS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(EBSP_CFLAGS) $< -o $@ $(EBSP_LIBS)

# A kernel: a shared object under the name the EBSP Makefiles give it.
bin/%.elf: %.c $(DEPS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(EBSP_CFLAGS) -shared -fPIC $< -o $@

clean:
	rm -rf bin

.PHONY: all run clean
