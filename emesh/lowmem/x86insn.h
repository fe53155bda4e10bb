/*
 * x86-64 instruction decoding, just enough to run one instruction again
 * elsewhere (lowmem.c): its length, where its memory operand is encoded,
 * and the same instruction with that operand made RIP-relative. 64-bit
 * mode only; the i386 build has none of it (x86insn_supported() is 0).
 */
#ifndef EBSP_X86INSN_H
#define EBSP_X86INSN_H

#include <stddef.h>
#include <stdint.h>

/* Register numbers of a decoded memory operand (x86_insn.base, .index). */
enum { X86_REG_NONE = -1, X86_REG_RIP = 16 };

/* Opcode maps (x86_insn.map). */
enum { X86_MAP_ONE = 0, X86_MAP_0F = 1, X86_MAP_0F38 = 2, X86_MAP_0F3A = 3 };

/* Encodings (x86_insn.encoding). */
enum { X86_LEGACY = 0, X86_VEX = 1, X86_EVEX = 2 };

struct x86_insn {
    int len;          /* bytes of the whole instruction */
    int encoding;     /* X86_LEGACY, X86_VEX, X86_EVEX */
    int map;          /* X86_MAP_*: the opcode's map */
    int opcode;       /* the opcode byte within its map */
    int prefix_66, prefix_67, rep; /* operand-size, address-size overrides; 0xF2, 0xF3 or 0 */
    int lock;         /* 0xF0 */
    int segment;      /* a segment override prefix byte (0x26 0x2E 0x36 0x3E 0x64 0x65), or 0 */
    int rex;          /* the REX byte, or 0 (legacy encoding only) */
    int rex_w;        /* REX.W, VEX.W or EVEX.W */
    int has_modrm;
    int modrm_at;     /* offset of the ModRM byte when has_modrm */
    int mod, reg, rm; /* ModRM fields as encoded (0-3, 0-7, 0-7), without extensions */
    int memory;       /* has_modrm and mod != 3: a memory operand */
    int base, index;  /* of the memory operand: 0-15 with the REX/VEX/EVEX extensions,
                         X86_REG_RIP (base only), or X86_REG_NONE; with VSIB (VEX/EVEX
                         0F38 90-93, A0-A3, C6, C7: gathers, scatters) index is the
                         vector register, 0-31, and x86_rewrite_rip refuses it */
    int scale;        /* 1, 2, 4 or 8 (1 without an index) */
    int64_t disp;     /* the displacement as the CPU adds it (EVEX disp8 scaled by N) */
    int disp_at, disp_size; /* where it is encoded: offset and bytes (0, 1 or 4) */
    int imm_size;     /* bytes of immediate after the displacement */
};

/* 1 when this build decodes (x86-64). */
int x86insn_supported(void);

/* Decodes the instruction at code (at most max bytes readable). 0 on
 * success, -1 when it is not a valid instruction or uses an encoding this
 * decoder does not know (3DNow!, XOP, an instruction longer than 15 bytes). */
int x86_decode(const unsigned char *code, size_t max, struct x86_insn *out);

/* Writes to out (room for 16 bytes) the instruction in, decoded from code,
 * with its memory operand replaced by [rip + disp32] naming target, for
 * the copy placed at address at; everything else (prefixes, registers,
 * immediates, the vector length and masking) unchanged. Returns the new
 * length, or -1 when in has no memory operand or target is out of reach
 * of a 32-bit displacement from at. */
int x86_rewrite_rip(const unsigned char *code, const struct x86_insn *in, unsigned char *out, uintptr_t at,
                    uintptr_t target);

#endif
