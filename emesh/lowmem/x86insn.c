/*
 * x86-64 instruction decoding (x86insn.h): the length of one instruction,
 * where its ModRM memory operand is encoded, and the same instruction with
 * that operand turned into [rip + disp32]. Written from the Intel SDM
 * (volume 2, chapter 2 and appendix A); it knows the layout of every
 * encoding, not the meaning of every opcode.
 *
 * It runs inside a SIGSEGV handler: no allocation, no locks, no stdio,
 * nothing but reads of the bytes it is handed and writes to its outputs.
 */
#include "x86insn.h"

#if defined(__x86_64__)

#include <string.h>

int x86insn_supported(void)
{
    return 1;
}

enum { MAX_LEN = 15 };

/* ---- one-byte and 0F opcode maps: ModRM presence and immediate ---------- */

/* Operand layout of an opcode after the opcode byte. */
enum layout {
    XX,   /* invalid in 64-bit mode, or a prefix/escape handled elsewhere */
    NO,   /* nothing follows */
    IB,   /* imm8 (or rel8) */
    IW,   /* imm16 */
    IZ,   /* imm32, imm16 with 66 (REX.W keeps 32) */
    IJ,   /* rel32: 64-bit mode ignores 66 on near branches (Intel) */
    IV,   /* B8+r: imm32, imm16 with 66, imm64 with REX.W */
    IE,   /* ENTER: iw, ib */
    IA,   /* A0-A3 moffs: a 64-bit address, 32-bit with 67 */
    RM,   /* ModRM */
    RB,   /* ModRM, imm8 */
    RZ,   /* ModRM, imm32/16 as IZ */
    RG,   /* F6/F7 group 3: /0 and /1 (TEST) take an immediate, the rest not */
    RC,   /* 0F 20-23 MOV to/from CR/DR: ModRM whose mod is ignored (registers) */
    R78   /* 0F 78: VMREAD; with 66 EXTRQ and with F2 INSERTQ take ib, ib */
};

/* The one-byte map (SDM table A-2). Prefixes, REX, 0F, C4/C5 (VEX) and 62
 * (EVEX) are consumed before this table is consulted. */
static const unsigned char one_byte[256] = {
    /*        0   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F */
    /* 0 */ RM, RM, RM, RM, IB, IZ, XX, XX, RM, RM, RM, RM, IB, IZ, XX, XX,
    /* 1 */ RM, RM, RM, RM, IB, IZ, XX, XX, RM, RM, RM, RM, IB, IZ, XX, XX,
    /* 2 */ RM, RM, RM, RM, IB, IZ, XX, XX, RM, RM, RM, RM, IB, IZ, XX, XX,
    /* 3 */ RM, RM, RM, RM, IB, IZ, XX, XX, RM, RM, RM, RM, IB, IZ, XX, XX,
    /* 4 */ XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX,
    /* 5 */ NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO,
    /* 6 */ XX, XX, XX, RM, XX, XX, XX, XX, IZ, RZ, IB, RB, NO, NO, NO, NO,
    /* 7 */ IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB,
    /* 8 */ RB, RZ, XX, RB, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* 9 */ NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, XX, NO, NO, NO, NO, NO,
    /* A */ IA, IA, IA, IA, NO, NO, NO, NO, IB, IZ, NO, NO, NO, NO, NO, NO,
    /* B */ IB, IB, IB, IB, IB, IB, IB, IB, IV, IV, IV, IV, IV, IV, IV, IV,
    /* C */ RB, RB, IW, NO, XX, XX, RB, RZ, IE, NO, IW, NO, NO, IB, XX, NO,
    /* D */ RM, RM, RM, RM, XX, XX, XX, NO, RM, RM, RM, RM, RM, RM, RM, RM,
    /* E */ IB, IB, IB, IB, IB, IB, IB, IB, IJ, IJ, XX, IB, NO, NO, NO, NO,
    /* F */ XX, NO, XX, XX, NO, NO, RG, RG, NO, NO, NO, NO, NO, NO, RM, RM,
};

/* The 0F map (SDM table A-3). 0F 0F (3DNow!) is XX: not decoded. 0F 38
 * and 0F 3A are escapes handled before the table. */
static const unsigned char two_byte[256] = {
    /*        0   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F */
    /* 0 */ RM, RM, RM, RM, XX, NO, NO, NO, NO, NO, XX, NO, XX, RM, NO, XX,
    /* 1 */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* 2 */ RC, RC, RC, RC, XX, XX, XX, XX, RM, RM, RM, RM, RM, RM, RM, RM,
    /* 3 */ NO, NO, NO, NO, NO, NO, XX, NO, XX, XX, XX, XX, XX, XX, XX, XX,
    /* 4 */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* 5 */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* 6 */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* 7 */ RB, RB, RB, RB, RM, RM, RM, NO, R78, RM, XX, XX, RM, RM, RM, RM,
    /* 8 */ IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ, IJ,
    /* 9 */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* A */ NO, NO, NO, RM, RB, RM, XX, XX, NO, NO, NO, RM, RB, RM, RM, RM,
    /* B */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RB, RM, RM, RM, RM, RM,
    /* C */ RM, RM, RB, RM, RB, RB, RB, RM, NO, NO, NO, NO, NO, NO, NO, NO,
    /* D */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* E */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
    /* F */ RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM, RM,
};

/* ---- EVEX compressed displacement (disp8*N, SDM 2.7.5) ------------------ */

/* Tuple types, reduced to how N follows from them. */
enum tuple {
    T_NONE,
    T_FV,   /* full vector: VL bytes; with broadcast the element (W: 8, else 4) */
    T_HV,   /* half vector: VL/2; with broadcast a 32-bit element */
    T_FVM,  /* full vector memory: VL bytes, no broadcast */
    T_HVM,  /* VL/2 */
    T_QVM,  /* VL/4 */
    T_OVM,  /* VL/8 */
    T_DUP,  /* VMOVDDUP: 8 at 128 bits, else VL */
    T_SW,   /* one element of W's size: 8 with W1, else 4 */
    T_SBW,  /* one byte or word element: 2 with W1, else 1 */
    T_G73,  /* 66 0F 73 group: /3 and /7 shift bytes (FVM), the others qwords (FV) */
    T_N1, T_N2, T_N4, T_N8, T_N16, T_N32 /* a fixed size */
};

/* Prefix (EVEX.pp) and W masks of a tuple table entry. */
enum { NP = 1, P66 = 2, PF3 = 4, PF2 = 8, PALL = 15, W0 = 1, W1 = 2, WX = 3 };

struct tuple_entry {
    unsigned char map, op, pp, w, tuple;
};

/* The memory operand's tuple type of the AVX-512 (F, BW, DQ, VL, CD, IFMA,
 * VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ, BF16, GFNI, VAES, VPCLMULQDQ, ER)
 * instructions, from their SDM pages. An EVEX instruction that is not here
 * decodes only without a disp8 (whose scaling would be a guess). */
static const struct tuple_entry tuples[] = {
    /* map 1 (0F): moves */
    {1, 0x10, NP | P66, WX, T_FVM}, {1, 0x10, PF3 | PF2, WX, T_SW}, /* movups/pd, movss/sd */
    {1, 0x11, NP | P66, WX, T_FVM}, {1, 0x11, PF3 | PF2, WX, T_SW},
    {1, 0x12, NP | P66, WX, T_N8},  {1, 0x12, PF3, WX, T_FVM},      /* movlps/pd, movsldup */
    {1, 0x12, PF2, WX, T_DUP},                                      /* movddup */
    {1, 0x13, NP | P66, WX, T_N8},  {1, 0x14, NP | P66, WX, T_FV},  /* movlps/pd, unpcklps/pd */
    {1, 0x15, NP | P66, WX, T_FV},  {1, 0x16, NP | P66, WX, T_N8},  /* unpckhps/pd, movhps/pd */
    {1, 0x16, PF3, WX, T_FVM},      {1, 0x17, NP | P66, WX, T_N8},  /* movshdup, movhps/pd */
    {1, 0x28, NP | P66, WX, T_FVM}, {1, 0x29, NP | P66, WX, T_FVM}, /* movaps/pd */
    {1, 0x2A, PF3 | PF2, WX, T_SW}, {1, 0x2B, NP | P66, WX, T_FVM}, /* cvtsi2ss/sd, movntps/pd */
    {1, 0x2C, PF3, WX, T_N4},       {1, 0x2C, PF2, WX, T_N8},       /* cvttss2si, cvttsd2si */
    {1, 0x2D, PF3, WX, T_N4},       {1, 0x2D, PF2, WX, T_N8},       /* cvtss2si, cvtsd2si */
    {1, 0x2E, NP | P66, WX, T_SW},  {1, 0x2F, NP | P66, WX, T_SW},  /* ucomiss/sd, comiss/sd */
    /* map 1: floating-point arithmetic, packed (FV) and scalar (SW) */
    {1, 0x51, NP | P66, WX, T_FV},  {1, 0x51, PF3 | PF2, WX, T_SW}, /* sqrt */
    {1, 0x54, NP | P66, WX, T_FV},  {1, 0x55, NP | P66, WX, T_FV},  /* and, andn */
    {1, 0x56, NP | P66, WX, T_FV},  {1, 0x57, NP | P66, WX, T_FV},  /* or, xor */
    {1, 0x58, NP | P66, WX, T_FV},  {1, 0x58, PF3 | PF2, WX, T_SW}, /* add */
    {1, 0x59, NP | P66, WX, T_FV},  {1, 0x59, PF3 | PF2, WX, T_SW}, /* mul */
    {1, 0x5A, NP, WX, T_HV},        {1, 0x5A, P66, WX, T_FV},       /* cvtps2pd, cvtpd2ps */
    {1, 0x5A, PF3 | PF2, WX, T_SW}, {1, 0x5B, NP | P66 | PF3, WX, T_FV}, /* cvtss2sd.., cvtdq2ps.. */
    {1, 0x5C, NP | P66, WX, T_FV},  {1, 0x5C, PF3 | PF2, WX, T_SW}, /* sub */
    {1, 0x5D, NP | P66, WX, T_FV},  {1, 0x5D, PF3 | PF2, WX, T_SW}, /* min */
    {1, 0x5E, NP | P66, WX, T_FV},  {1, 0x5E, PF3 | PF2, WX, T_SW}, /* div */
    {1, 0x5F, NP | P66, WX, T_FV},  {1, 0x5F, PF3 | PF2, WX, T_SW}, /* max */
    /* map 1, 66: integer; byte and word elements are FVM, dwords and qwords FV */
    {1, 0x60, P66, WX, T_FVM}, {1, 0x61, P66, WX, T_FVM}, {1, 0x62, P66, WX, T_FV},
    {1, 0x63, P66, WX, T_FVM}, {1, 0x64, P66, WX, T_FVM}, {1, 0x65, P66, WX, T_FVM},
    {1, 0x66, P66, WX, T_FV},  {1, 0x67, P66, WX, T_FVM}, {1, 0x68, P66, WX, T_FVM},
    {1, 0x69, P66, WX, T_FVM}, {1, 0x6A, P66, WX, T_FV},  {1, 0x6B, P66, WX, T_FV},
    {1, 0x6C, P66, WX, T_FV},  {1, 0x6D, P66, WX, T_FV},  {1, 0x6E, P66, WX, T_SW}, /* movd/q */
    {1, 0x6F, P66 | PF3 | PF2, WX, T_FVM},                                            /* movdqa/u* */
    {1, 0x70, P66, WX, T_FV},  {1, 0x70, PF3 | PF2, WX, T_FVM},                       /* pshufd, hw, lw */
    {1, 0x71, P66, WX, T_FVM}, {1, 0x72, P66, WX, T_FV},  {1, 0x73, P66, WX, T_G73},
    {1, 0x74, P66, WX, T_FVM}, {1, 0x75, P66, WX, T_FVM}, {1, 0x76, P66, WX, T_FV},   /* pcmpeq */
    {1, 0x78, NP, WX, T_FV},   {1, 0x78, P66, W0, T_HV},  {1, 0x78, P66, W1, T_FV},   /* cvtt*2u* */
    {1, 0x78, PF3, WX, T_N4},  {1, 0x78, PF2, WX, T_N8},
    {1, 0x79, NP, WX, T_FV},   {1, 0x79, P66, W0, T_HV},  {1, 0x79, P66, W1, T_FV},   /* cvt*2u* */
    {1, 0x79, PF3, WX, T_N4},  {1, 0x79, PF2, WX, T_N8},
    {1, 0x7A, P66 | PF3, W0, T_HV}, {1, 0x7A, P66 | PF3, W1, T_FV}, {1, 0x7A, PF2, WX, T_FV},
    {1, 0x7B, P66, W0, T_HV},  {1, 0x7B, P66, W1, T_FV},  {1, 0x7B, PF3 | PF2, WX, T_SW},
    {1, 0x7E, P66, WX, T_SW},  {1, 0x7E, PF3, WX, T_N8},                              /* movd/q, movq */
    {1, 0x7F, P66 | PF3 | PF2, WX, T_FVM},
    {1, 0xC2, NP | P66, WX, T_FV}, {1, 0xC2, PF3 | PF2, WX, T_SW},                    /* cmpps.., cmpss.. */
    {1, 0xC4, P66, WX, T_N2},  {1, 0xC5, P66, WX, T_N2},  {1, 0xC6, NP | P66, WX, T_FV},
    {1, 0xD1, P66, WX, T_N16}, {1, 0xD2, P66, WX, T_N16}, {1, 0xD3, P66, WX, T_N16},  /* shifts by xmm/m128 */
    {1, 0xD4, P66, WX, T_FV},  {1, 0xD5, P66, WX, T_FVM}, {1, 0xD6, P66, WX, T_N8},   /* paddq, pmullw, movq */
    {1, 0xD8, P66, WX, T_FVM}, {1, 0xD9, P66, WX, T_FVM}, {1, 0xDA, P66, WX, T_FVM},
    {1, 0xDB, P66, WX, T_FV},  {1, 0xDC, P66, WX, T_FVM}, {1, 0xDD, P66, WX, T_FVM},
    {1, 0xDE, P66, WX, T_FVM}, {1, 0xDF, P66, WX, T_FV},
    {1, 0xE0, P66, WX, T_FVM}, {1, 0xE1, P66, WX, T_N16}, {1, 0xE2, P66, WX, T_N16},
    {1, 0xE3, P66, WX, T_FVM}, {1, 0xE4, P66, WX, T_FVM}, {1, 0xE5, P66, WX, T_FVM},
    {1, 0xE6, P66 | PF2, WX, T_FV}, {1, 0xE6, PF3, W0, T_HV}, {1, 0xE6, PF3, W1, T_FV},
    {1, 0xE7, P66, WX, T_FVM}, {1, 0xE8, P66, WX, T_FVM}, {1, 0xE9, P66, WX, T_FVM},  /* movntdq */
    {1, 0xEA, P66, WX, T_FVM}, {1, 0xEB, P66, WX, T_FV},  {1, 0xEC, P66, WX, T_FVM},
    {1, 0xED, P66, WX, T_FVM}, {1, 0xEE, P66, WX, T_FVM}, {1, 0xEF, P66, WX, T_FV},   /* pxord/q */
    {1, 0xF1, P66, WX, T_N16}, {1, 0xF2, P66, WX, T_N16}, {1, 0xF3, P66, WX, T_N16},
    {1, 0xF4, P66, WX, T_FV},  {1, 0xF5, P66, WX, T_FVM}, {1, 0xF6, P66, WX, T_FVM},
    {1, 0xF8, P66, WX, T_FVM}, {1, 0xF9, P66, WX, T_FVM}, {1, 0xFA, P66, WX, T_FV},
    {1, 0xFB, P66, WX, T_FV},  {1, 0xFC, P66, WX, T_FVM}, {1, 0xFD, P66, WX, T_FVM},
    {1, 0xFE, P66, WX, T_FV},
    /* map 2 (0F38), 66 unless said otherwise */
    {2, 0x00, P66, WX, T_FVM}, {2, 0x04, P66, WX, T_FVM}, {2, 0x0B, P66, WX, T_FVM},
    {2, 0x0C, P66, WX, T_FV},  {2, 0x0D, P66, WX, T_FV},
    {2, 0x10, P66, WX, T_FVM}, {2, 0x11, P66, WX, T_FVM}, {2, 0x12, P66, WX, T_FVM},  /* psrlvw.. */
    {2, 0x13, P66, WX, T_HVM}, {2, 0x14, P66, WX, T_FV},  {2, 0x15, P66, WX, T_FV},   /* cvtph2ps, prorv, prolv */
    {2, 0x16, P66, WX, T_FV},  {2, 0x18, P66, WX, T_N4},  {2, 0x19, P66, WX, T_N8},   /* permps, broadcasts */
    {2, 0x1A, P66, WX, T_N16}, {2, 0x1B, P66, WX, T_N32},
    {2, 0x1C, P66, WX, T_FVM}, {2, 0x1D, P66, WX, T_FVM}, {2, 0x1E, P66, WX, T_FV},   /* pabs */
    {2, 0x1F, P66, WX, T_FV},
    /* pmovsx/pmovzx (66) and their narrowing stores pmov[s|us] (F3) share a size */
    {2, 0x10, PF3, WX, T_HVM}, {2, 0x11, PF3, WX, T_QVM}, {2, 0x12, PF3, WX, T_OVM},
    {2, 0x13, PF3, WX, T_HVM}, {2, 0x14, PF3, WX, T_QVM}, {2, 0x15, PF3, WX, T_HVM},
    {2, 0x20, P66 | PF3, WX, T_HVM}, {2, 0x21, P66 | PF3, WX, T_QVM}, {2, 0x22, P66 | PF3, WX, T_OVM},
    {2, 0x23, P66 | PF3, WX, T_HVM}, {2, 0x24, P66 | PF3, WX, T_QVM}, {2, 0x25, P66 | PF3, WX, T_HVM},
    {2, 0x30, P66 | PF3, WX, T_HVM}, {2, 0x31, P66 | PF3, WX, T_QVM}, {2, 0x32, P66 | PF3, WX, T_OVM},
    {2, 0x33, P66 | PF3, WX, T_HVM}, {2, 0x34, P66 | PF3, WX, T_QVM}, {2, 0x35, P66 | PF3, WX, T_HVM},
    {2, 0x26, P66 | PF3, WX, T_FVM}, {2, 0x27, P66 | PF3, WX, T_FV},                  /* ptestm, ptestnm */
    {2, 0x28, P66, WX, T_FV},  {2, 0x29, P66, WX, T_FV},  {2, 0x2A, P66, WX, T_FVM},  /* pmuldq, pcmpeqq, movntdqa */
    {2, 0x2B, P66, WX, T_FV},  {2, 0x2C, P66, WX, T_FV},  {2, 0x2D, P66, WX, T_SW},   /* packusdw, scalef */
    {2, 0x36, P66, WX, T_FV},  {2, 0x37, P66, WX, T_FV},  {2, 0x38, P66, WX, T_FVM},
    {2, 0x39, P66, WX, T_FV},  {2, 0x3A, P66, WX, T_FVM}, {2, 0x3B, P66, WX, T_FV},   /* pmin/pmax */
    {2, 0x3C, P66, WX, T_FVM}, {2, 0x3D, P66, WX, T_FV},  {2, 0x3E, P66, WX, T_FVM},
    {2, 0x3F, P66, WX, T_FV},  {2, 0x40, P66, WX, T_FV},  {2, 0x42, P66, WX, T_FV},   /* pmulld, getexp */
    {2, 0x43, P66, WX, T_SW},  {2, 0x44, P66, WX, T_FV},  {2, 0x45, P66, WX, T_FV},   /* plzcnt, psrlv */
    {2, 0x46, P66, WX, T_FV},  {2, 0x47, P66, WX, T_FV},  {2, 0x4C, P66, WX, T_FV},   /* psrav, psllv, rcp14 */
    {2, 0x4D, P66, WX, T_SW},  {2, 0x4E, P66, WX, T_FV},  {2, 0x4F, P66, WX, T_SW},   /* rsqrt14 */
    {2, 0x50, P66, WX, T_FV},  {2, 0x51, P66, WX, T_FV},  {2, 0x52, P66, WX, T_FV},   /* vnni */
    {2, 0x53, P66, WX, T_FV},  {2, 0x54, P66, WX, T_FVM}, {2, 0x55, P66, WX, T_FV},   /* popcnt */
    {2, 0x58, P66, WX, T_N4},  {2, 0x59, P66, WX, T_N8},  {2, 0x5A, P66, WX, T_N16},  /* pbroadcast */
    {2, 0x5B, P66, WX, T_N32}, {2, 0x62, P66, WX, T_SBW}, {2, 0x63, P66, WX, T_SBW},  /* pexpand, pcompress b/w */
    {2, 0x64, P66, WX, T_FV},  {2, 0x65, P66, WX, T_FV},  {2, 0x66, P66, WX, T_FVM},  /* blendm */
    {2, 0x68, PF2, WX, T_FV},                                                         /* p2intersect */
    {2, 0x70, P66, WX, T_FVM}, {2, 0x71, P66, WX, T_FV},  {2, 0x72, P66, WX, T_FVM},  /* pshldv, pshrdv */
    {2, 0x72, PF3 | PF2, WX, T_FV}, {2, 0x73, P66, WX, T_FV},                        /* cvtne(2)ps2bf16 */
    {2, 0x75, P66, WX, T_FVM}, {2, 0x76, P66, WX, T_FV},  {2, 0x77, P66, WX, T_FV},   /* permi2 */
    {2, 0x78, P66, WX, T_N1},  {2, 0x79, P66, WX, T_N2},                              /* pbroadcastb/w */
    {2, 0x7D, P66, WX, T_FVM}, {2, 0x7E, P66, WX, T_FV},  {2, 0x7F, P66, WX, T_FV},   /* permt2 */
    {2, 0x83, P66, WX, T_FV},  {2, 0x88, P66, WX, T_SW},  {2, 0x89, P66, WX, T_SW},   /* multishift, expand */
    {2, 0x8A, P66, WX, T_SW},  {2, 0x8B, P66, WX, T_SW},  {2, 0x8D, P66, WX, T_FVM},  /* compress, permb/w */
    {2, 0x8F, P66, WX, T_FVM},                                                        /* pshufbitqmb */
    {2, 0x90, P66, WX, T_SW},  {2, 0x91, P66, WX, T_SW},  {2, 0x92, P66, WX, T_SW},   /* gathers (VSIB) */
    {2, 0x93, P66, WX, T_SW},  {2, 0xA0, P66, WX, T_SW},  {2, 0xA1, P66, WX, T_SW},   /* scatters */
    {2, 0xA2, P66, WX, T_SW},  {2, 0xA3, P66, WX, T_SW},  {2, 0xC6, P66, WX, T_SW},
    {2, 0xC7, P66, WX, T_SW},
    /* FMA: packed forms on even opcodes and 96/97, scalar on the odd ones from 99 */
    {2, 0x96, P66, WX, T_FV},  {2, 0x97, P66, WX, T_FV},  {2, 0x98, P66, WX, T_FV},
    {2, 0x99, P66, WX, T_SW},  {2, 0x9A, P66, WX, T_FV},  {2, 0x9B, P66, WX, T_SW},
    {2, 0x9C, P66, WX, T_FV},  {2, 0x9D, P66, WX, T_SW},  {2, 0x9E, P66, WX, T_FV},
    {2, 0x9F, P66, WX, T_SW},  {2, 0xA6, P66, WX, T_FV},  {2, 0xA7, P66, WX, T_FV},
    {2, 0xA8, P66, WX, T_FV},  {2, 0xA9, P66, WX, T_SW},  {2, 0xAA, P66, WX, T_FV},
    {2, 0xAB, P66, WX, T_SW},  {2, 0xAC, P66, WX, T_FV},  {2, 0xAD, P66, WX, T_SW},
    {2, 0xAE, P66, WX, T_FV},  {2, 0xAF, P66, WX, T_SW},  {2, 0xB6, P66, WX, T_FV},
    {2, 0xB7, P66, WX, T_FV},  {2, 0xB8, P66, WX, T_FV},  {2, 0xB9, P66, WX, T_SW},
    {2, 0xBA, P66, WX, T_FV},  {2, 0xBB, P66, WX, T_SW},  {2, 0xBC, P66, WX, T_FV},
    {2, 0xBD, P66, WX, T_SW},  {2, 0xBE, P66, WX, T_FV},  {2, 0xBF, P66, WX, T_SW},
    {2, 0xB4, P66, WX, T_FV},  {2, 0xB5, P66, WX, T_FV},  {2, 0xC4, P66, WX, T_FV},   /* pmadd52, pconflict */
    {2, 0xC8, P66, WX, T_FV},  {2, 0xCA, P66, WX, T_FV},  {2, 0xCB, P66, WX, T_SW},   /* exp2, rcp28 */
    {2, 0xCC, P66, WX, T_FV},  {2, 0xCD, P66, WX, T_SW},  {2, 0xCF, P66, WX, T_FVM},  /* rsqrt28, gf2p8mulb */
    {2, 0xDC, P66, WX, T_FVM}, {2, 0xDD, P66, WX, T_FVM}, {2, 0xDE, P66, WX, T_FVM},  /* vaes */
    {2, 0xDF, P66, WX, T_FVM},
    /* map 3 (0F3A), all 66 */
    {3, 0x00, P66, WX, T_FV},  {3, 0x01, P66, WX, T_FV},  {3, 0x03, P66, WX, T_FV},   /* permq/pd, align */
    {3, 0x04, P66, WX, T_FV},  {3, 0x05, P66, WX, T_FV},  {3, 0x08, P66, WX, T_FV},   /* permil, rndscale */
    {3, 0x09, P66, WX, T_FV},  {3, 0x0A, P66, WX, T_N4},  {3, 0x0B, P66, WX, T_N8},
    {3, 0x0F, P66, WX, T_FVM}, {3, 0x14, P66, WX, T_N1},  {3, 0x15, P66, WX, T_N2},   /* palignr, pextrb/w */
    {3, 0x16, P66, WX, T_SW},  {3, 0x17, P66, WX, T_N4},                              /* pextrd/q, extractps */
    {3, 0x18, P66, WX, T_N16}, {3, 0x19, P66, WX, T_N16}, {3, 0x1A, P66, WX, T_N32},  /* insert/extract f */
    {3, 0x1B, P66, WX, T_N32}, {3, 0x1D, P66, WX, T_HVM}, {3, 0x1E, P66, WX, T_FV},   /* cvtps2ph, pcmpu */
    {3, 0x1F, P66, WX, T_FV},  {3, 0x20, P66, WX, T_N1},  {3, 0x21, P66, WX, T_N4},   /* pcmp, pinsrb, insertps */
    {3, 0x22, P66, WX, T_SW},  {3, 0x23, P66, WX, T_FV},  {3, 0x25, P66, WX, T_FV},   /* pinsrd/q, shuff, pternlog */
    {3, 0x26, P66, WX, T_FV},  {3, 0x27, P66, WX, T_SW},                              /* getmant */
    {3, 0x38, P66, WX, T_N16}, {3, 0x39, P66, WX, T_N16}, {3, 0x3A, P66, WX, T_N32},  /* insert/extract i */
    {3, 0x3B, P66, WX, T_N32}, {3, 0x3E, P66, WX, T_FVM}, {3, 0x3F, P66, WX, T_FVM},  /* pcmp(u)b/w */
    {3, 0x42, P66, WX, T_FVM}, {3, 0x43, P66, WX, T_FV},  {3, 0x44, P66, WX, T_FVM},  /* dbpsadbw, shufi, pclmul */
    {3, 0x50, P66, WX, T_FV},  {3, 0x51, P66, WX, T_SW},  {3, 0x54, P66, WX, T_FV},   /* range, fixupimm */
    {3, 0x55, P66, WX, T_SW},  {3, 0x56, P66, WX, T_FV},  {3, 0x57, P66, WX, T_SW},   /* reduce */
    {3, 0x66, P66, WX, T_FV},  {3, 0x67, P66, WX, T_SW},                              /* fpclass */
    {3, 0x70, P66, WX, T_FVM}, {3, 0x71, P66, WX, T_FV},  {3, 0x72, P66, WX, T_FVM},  /* pshld, pshrd */
    {3, 0x73, P66, WX, T_FV},  {3, 0xCE, P66, WX, T_FV},  {3, 0xCF, P66, WX, T_FV},   /* gf2p8affine */
};

/* ---- decoding ------------------------------------------------------------ */

/* What the decoder learns beyond struct x86_insn, for the rewrite. */
struct decoding {
    const unsigned char *code;
    int limit;      /* bytes that may be read: min(max, 15) */
    int pos;        /* next byte */
    int ext_at;     /* offset of the REX byte or of the VEX3/EVEX byte holding X and B, or -1 */
    int ext_x, ext_b; /* index and base extensions (bit 3) */
    int ext_v;      /* EVEX.V' as bit 4 of a VSIB index */
    int pp;         /* VEX/EVEX implied prefix: 0 none, 1 66, 2 F3, 3 F2 */
    int vl;         /* VEX.L or EVEX.L'L */
    int bcst;       /* EVEX.b */
    int vsib;       /* the SIB index is a vector register */
    int sib_only;   /* the operand needs its SIB (VSIB, MPX, AMX): no RIP form */
};

static int next_byte(struct decoding *d)
{
    if (d->pos >= d->limit)
        return -1;
    return d->code[d->pos++];
}

static int is_legacy_prefix(int b)
{
    switch (b) {
    case 0x66: case 0x67: case 0xF2: case 0xF3: case 0xF0:
    case 0x26: case 0x2E: case 0x36: case 0x3E: case 0x64: case 0x65:
        return 1;
    }
    return 0;
}

/* Legacy prefixes in any order, then REX: a REX counts only right before
 * the opcode (one followed by another prefix is ignored, as the CPU does;
 * of several in a row the last counts). Stops at the first other byte. */
static int read_prefixes(struct decoding *d, struct x86_insn *o)
{
    for (;;) {
        if (d->pos >= d->limit)
            return -1;
        int b = d->code[d->pos];
        if (b >= 0x40 && b <= 0x4F) {
            o->rex = b;
            d->ext_at = d->pos;
        } else if (is_legacy_prefix(b)) {
            o->rex = 0;
            d->ext_at = -1;
            if (b == 0x66)
                o->prefix_66 = 1;
            else if (b == 0x67)
                o->prefix_67 = 1;
            else if (b == 0xF2 || b == 0xF3)
                o->rep = b; /* the last of F2/F3 is the one that counts */
            else if (b == 0xF0)
                o->lock = 1;
            else
                o->segment = b;
        } else {
            return 0;
        }
        d->pos++;
    }
}

/* The legacy encodings: one-byte map, 0F, 0F 38, 0F 3A. Returns the
 * layout of what follows the opcode. */
static int legacy_opcode(struct decoding *d, struct x86_insn *o)
{
    int op = next_byte(d);
    if (op < 0)
        return XX;
    o->rex_w = (o->rex >> 3) & 1;
    d->ext_x = (o->rex >> 1) & 1;
    d->ext_b = o->rex & 1;
    if (op != 0x0F) {
        o->map = X86_MAP_ONE;
        o->opcode = op;
        return one_byte[op];
    }
    op = next_byte(d);
    if (op == 0x38 || op == 0x3A) {
        o->map = op == 0x38 ? X86_MAP_0F38 : X86_MAP_0F3A;
        o->opcode = next_byte(d);
        if (o->opcode < 0)
            return XX;
        /* 0F 38: all ModRM, no immediate; 0F 3A: all ModRM and imm8 */
        return op == 0x38 ? RM : RB;
    }
    if (op < 0)
        return XX;
    o->map = X86_MAP_0F;
    o->opcode = op;
    return two_byte[op];
}

/* What follows a VEX or EVEX opcode: a ModRM, and an imm8 for map 3 and for
 * map 1's 70-73, C2 and C4-C6. */
static int vector_layout(const struct x86_insn *o)
{
    if (o->map == X86_MAP_0F3A)
        return RB;
    if (o->map == X86_MAP_0F38)
        return RM;
    switch (o->opcode) {
    case 0x70: case 0x71: case 0x72: case 0x73: case 0xC2: case 0xC4: case 0xC5: case 0xC6:
        return RB;
    }
    return RM;
}

/* VEX (C4 three bytes, C5 two bytes); the payload's R, X, B, vvvv are
 * stored inverted. */
static int vex_opcode(struct decoding *d, struct x86_insn *o, int first)
{
    int p1 = next_byte(d), p2;
    if (p1 < 0)
        return XX;
    if (first == 0xC4) {
        d->ext_at = d->pos - 1;
        d->ext_x = !(p1 & 0x40);
        d->ext_b = !(p1 & 0x20);
        o->map = p1 & 0x1F;
        p2 = next_byte(d);
        if (p2 < 0 || o->map < 1 || o->map > 3)
            return XX; /* map 0 is reserved, others unassigned */
        o->rex_w = p2 >> 7;
    } else {
        o->map = X86_MAP_0F; /* C5: map 1, W0, no X or B; its one byte is laid out as C4's second */
        p2 = p1;
    }
    d->vl = (p2 >> 2) & 1;
    d->pp = p2 & 3;
    o->encoding = X86_VEX;
    o->opcode = next_byte(d);
    if (o->opcode < 0)
        return XX;
    if (o->map == X86_MAP_0F && o->opcode == 0x77)
        return NO; /* vzeroupper, vzeroall */
    return vector_layout(o);
}

/* EVEX (62 and three payload bytes P0 P1 P2). Maps 5 and 6 (FP16) and the
 * APX extensions are not decoded. */
static int evex_opcode(struct decoding *d, struct x86_insn *o)
{
    int p0 = next_byte(d), p1 = next_byte(d), p2 = next_byte(d);
    if (p2 < 0 || (p0 & 0x08) || !(p1 & 0x04))
        return XX; /* the fixed bits: P0 bit 3 is 0, P1 bit 2 is 1 */
    d->ext_at = d->pos - 3;
    d->ext_x = !(p0 & 0x40);
    d->ext_b = !(p0 & 0x20);
    d->ext_v = !(p2 & 0x08);
    o->map = p0 & 7;
    if (o->map < 1 || o->map > 3)
        return XX;
    o->rex_w = p1 >> 7;
    d->pp = p1 & 3;
    d->vl = (p2 >> 5) & 3;
    d->bcst = (p2 >> 4) & 1;
    o->encoding = X86_EVEX;
    o->opcode = next_byte(d);
    if (o->opcode < 0)
        return XX;
    return vector_layout(o);
}

/* Operands that must keep a SIB byte: VSIB (gathers, scatters and their
 * prefetches take a vector index), MPX BNDLDX/BNDSTX and AMX tile loads
 * and stores (whose SIB "sibmem" is not an address). */
static void mark_sib_only(struct decoding *d, const struct x86_insn *o)
{
    if (o->encoding != X86_LEGACY && o->map == X86_MAP_0F38) {
        int op = o->opcode;
        if ((op >= 0x90 && op <= 0x93) || (op >= 0xA0 && op <= 0xA3) || op == 0xC6 || op == 0xC7)
            d->vsib = d->sib_only = 1;
        if (o->encoding == X86_VEX && op == 0x4B && d->pp != 0)
            d->sib_only = 1;
    }
    if (o->encoding == X86_LEGACY && o->map == X86_MAP_0F && (o->opcode == 0x1A || o->opcode == 0x1B) &&
        !o->prefix_66 && !o->rep)
        d->sib_only = 1;
}

/* A little-endian signed value of n (1, 2 or 4) bytes. */
static int64_t read_signed(const unsigned char *p, int n)
{
    if (n == 1)
        return (int8_t)p[0];
    if (n == 2)
        return (int16_t)(p[0] | p[1] << 8);
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The SIB byte (mod != 3, rm = 100). */
static int read_sib(struct decoding *d, struct x86_insn *o)
{
    int sib = next_byte(d);
    if (sib < 0)
        return -1;
    int index = ((sib >> 3) & 7) | d->ext_x << 3;
    if (d->vsib)
        o->index = index | d->ext_v << 4; /* a vector register: 100 is a register too */
    else if (index != 4)
        o->index = index; /* 100 is "no index", but with REX.X it is r12 */
    if (o->index != X86_REG_NONE)
        o->scale = 1 << (sib >> 6);
    if ((sib & 7) == 5 && o->mod == 0)
        o->disp_size = 4; /* no base, disp32 (r13 as a base needs mod 01 or 10) */
    else
        o->base = (sib & 7) | d->ext_b << 3;
    return 0;
}

/* ModRM, SIB and displacement. reg_only: the mod field is ignored and the
 * operand is a register whatever it says (MOV CR/DR). */
static int read_modrm(struct decoding *d, struct x86_insn *o, int reg_only)
{
    o->modrm_at = d->pos;
    int m = next_byte(d);
    if (m < 0)
        return -1;
    o->has_modrm = 1;
    o->mod = m >> 6;
    o->reg = (m >> 3) & 7;
    o->rm = m & 7;
    if (o->mod == 3 || reg_only)
        return 0;
    o->memory = 1;
    if (o->rm == 4) {
        if (read_sib(d, o) != 0)
            return -1;
    } else if (o->mod == 0 && o->rm == 5) {
        o->base = X86_REG_RIP; /* 64-bit mode: RIP-relative (EIP with 67) */
        o->disp_size = 4;
    } else {
        o->base = o->rm | d->ext_b << 3;
    }
    if (o->mod == 1)
        o->disp_size = 1;
    else if (o->mod == 2)
        o->disp_size = 4;
    if (o->disp_size) {
        o->disp_at = d->pos;
        if (d->pos + o->disp_size > d->limit)
            return -1;
        o->disp = read_signed(d->code + d->pos, o->disp_size);
        d->pos += o->disp_size;
    }
    return 0;
}

/* Immediate bytes of a layout (after the ModRM operand when there is one). */
static int immediate_size(const struct x86_insn *o, int layout)
{
    int z = o->prefix_66 && !o->rex_w ? 2 : 4;
    switch (layout) {
    case IB: case RB:
        return 1;
    case IW:
        return 2;
    case IZ: case RZ:
        return z;
    case IJ:
        return 4;
    case IV:
        return o->rex_w ? 8 : z;
    case IE:
        return 3;
    case IA:
        return o->prefix_67 ? 4 : 8;
    case RG:
        if (o->reg > 1)
            return 0;
        return o->opcode == 0xF6 ? 1 : z;
    case R78:
        return o->rep == 0xF2 || (o->prefix_66 && o->rep != 0xF3) ? 2 : 0;
    }
    return 0;
}

static enum tuple find_tuple(const struct x86_insn *o, int pp)
{
    for (size_t i = 0; i < sizeof tuples / sizeof tuples[0]; i++) {
        const struct tuple_entry *e = &tuples[i];
        if (e->map == o->map && e->op == o->opcode && (e->pp >> pp & 1) && (e->w >> o->rex_w & 1))
            return (enum tuple)e->tuple;
    }
    return T_NONE;
}

/* N of EVEX disp8*N for this instruction, or -1 when not known (or the
 * combination is invalid: broadcast on a tuple without one, L'L = 11). */
static int disp8_scale(const struct decoding *d, const struct x86_insn *o)
{
    enum tuple t = find_tuple(o, d->pp);
    if (t == T_G73)
        t = o->reg == 3 || o->reg == 7 ? T_FVM : T_FV;
    int vl = d->vl == 3 ? 0 : 16 << d->vl; /* bytes */
    int elem = o->rex_w ? 8 : 4;
    if (d->bcst && t != T_FV && t != T_HV)
        return -1;
    switch (t) {
    case T_FV:
        return d->bcst ? elem : vl;
    case T_HV:
        return d->bcst ? 4 : vl / 2;
    case T_FVM:
        return vl;
    case T_HVM:
        return vl / 2;
    case T_QVM:
        return vl / 4;
    case T_OVM:
        return vl / 8;
    case T_DUP:
        return vl == 16 ? 8 : vl;
    case T_SW:
        return elem;
    case T_SBW:
        return o->rex_w ? 2 : 1;
    case T_N1:
        return 1;
    case T_N2:
        return 2;
    case T_N4:
        return 4;
    case T_N8:
        return 8;
    case T_N16:
        return 16;
    case T_N32:
        return 32;
    default:
        return -1;
    }
}

/* Everything after the prefixes: the opcode in its encoding, the operand
 * and the immediate. */
static int decode_rest(struct decoding *d, struct x86_insn *o)
{
    int first = d->code[d->pos];
    int layout;
    if (first == 0xC4 || first == 0xC5 || first == 0x62) {
        /* 64-bit mode: always VEX/EVEX; 66, F2, F3, F0 or REX before them is #UD */
        if (o->prefix_66 || o->rep || o->lock || o->rex)
            return -1;
        d->pos++;
        layout = first == 0x62 ? evex_opcode(d, o) : vex_opcode(d, o, first);
    } else {
        layout = legacy_opcode(d, o);
    }
    if (layout == XX)
        return -1;
    mark_sib_only(d, o);
    if (layout >= RM && read_modrm(d, o, layout == RC) != 0)
        return -1;
    if (o->encoding == X86_LEGACY && o->map == X86_MAP_ONE && o->opcode == 0x8F && o->reg != 0)
        return -1; /* XOP (AMD), not POP */
    if (o->encoding == X86_EVEX && o->disp_size == 1) {
        int n = disp8_scale(d, o);
        if (n <= 0)
            return -1;
        o->disp *= n;
    }
    o->imm_size = immediate_size(o, layout);
    if (d->pos + o->imm_size > d->limit)
        return -1;
    o->len = d->pos + o->imm_size;
    return 0;
}

static int decode(const unsigned char *code, size_t max, struct x86_insn *o, struct decoding *d)
{
    memset(o, 0, sizeof *o);
    memset(d, 0, sizeof *d);
    o->base = o->index = X86_REG_NONE;
    o->scale = 1;
    d->code = code;
    d->limit = max < MAX_LEN ? (int)max : MAX_LEN;
    d->ext_at = -1;
    if (read_prefixes(d, o) != 0 || decode_rest(d, o) != 0)
        return -1;
    return 0;
}

int x86_decode(const unsigned char *code, size_t max, struct x86_insn *out)
{
    struct decoding d;
    if (!code || !out)
        return -1;
    return decode(code, max, out, &d);
}

/* ---- rewriting ----------------------------------------------------------- */

/* Clears the index and base extensions: REX.X and REX.B, or the inverted
 * X and B of VEX3/EVEX set to 1 (EVEX.V' stays: without VSIB it extends
 * vvvv, not the index). */
static void clear_extensions(unsigned char *out, const struct decoding *d, const struct x86_insn *o)
{
    if (d->ext_at < 0)
        return;
    if (o->encoding == X86_LEGACY)
        out[d->ext_at] &= (unsigned char)~0x03;
    else
        out[d->ext_at] |= 0x60;
}

int x86_rewrite_rip(const unsigned char *code, const struct x86_insn *in, unsigned char *out, uintptr_t at,
                    uintptr_t target)
{
    struct x86_insn o;
    struct decoding d;
    if (!code || !in || !out || !in->memory || in->len < 1)
        return -1;
    /* decode again for what struct x86_insn does not keep (where the
     * extension bits are, VSIB); it must be the same instruction */
    if (decode(code, (size_t)in->len, &o, &d) != 0 || o.len != in->len || o.modrm_at != in->modrm_at ||
        !o.memory || d.sib_only)
        return -1;
    int n = o.modrm_at + 1 + 4 + o.imm_size;
    if (n > MAX_LEN)
        return -1;
    /* relative to the end of the new instruction; unsigned arithmetic
     * wraps, the cast gives the signed distance */
    int64_t rel = (int64_t)(target - (at + (uintptr_t)n));
    if (rel < INT32_MIN || rel > INT32_MAX)
        return -1;
    if (o.prefix_67 && target > 0xFFFFFFFFu)
        return -1; /* with 67 the address (EIP + disp) is truncated to 32 bits */
    memcpy(out, code, (size_t)o.modrm_at);
    clear_extensions(out, &d, &o);
    out[o.modrm_at] = (unsigned char)(o.reg << 3 | 5); /* mod 00, rm 101: [rip + disp32] */
    uint32_t u = (uint32_t)(int32_t)rel;
    for (int i = 0; i < 4; i++)
        out[o.modrm_at + 1 + i] = (unsigned char)(u >> (8 * i));
    memcpy(out + o.modrm_at + 5, code + o.len - o.imm_size, (size_t)o.imm_size);
    return n;
}

#else /* not x86-64: nothing is decoded */

int x86insn_supported(void)
{
    return 0;
}

int x86_decode(const unsigned char *code, size_t max, struct x86_insn *out)
{
    (void)code;
    (void)max;
    (void)out;
    return -1;
}

int x86_rewrite_rip(const unsigned char *code, const struct x86_insn *in, unsigned char *out, uintptr_t at,
                    uintptr_t target)
{
    (void)code;
    (void)in;
    (void)out;
    (void)at;
    (void)target;
    return -1;
}

#endif
