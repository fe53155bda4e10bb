/*
 * Test driver of emesh/lowmem/x86insn.c (gotests/x86insn_test.go). Reads lines
 * from stdin and answers each with one line:
 *
 *   D <hex bytes>                 -> "-1", or "len mem base index scale disp disp_size imm_size
 *                                    encoding map opcode modrm_at segment prefix_67"
 *   R <hex bytes> <at> <target>   -> "-1", or the rewritten instruction's hex bytes (at, target in hex)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x86insn.h"

static int parse_hex(const char *s, unsigned char *buf, int room)
{
    int n = 0;
    while (s[0] && s[1] && n < room) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        buf[n++] = (unsigned char)v;
        s += 2;
    }
    return n;
}

int main(void)
{
    static char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        char kind, hex[256];
        unsigned long long at = 0, target = 0;
        int fields = sscanf(line, "%c %255s %llx %llx", &kind, hex, &at, &target);
        unsigned char code[64], out[16];
        struct x86_insn in;
        if (fields < 2) {
            puts("-1");
            continue;
        }
        int n = parse_hex(hex, code, (int)sizeof code);
        if (x86_decode(code, (size_t)n, &in) != 0) {
            puts("-1");
            continue;
        }
        if (kind == 'D') {
            printf("%d %d %d %d %d %lld %d %d %d %d %d %d %d %d\n", in.len, in.memory, in.base, in.index, in.scale,
                   (long long)in.disp, in.disp_size, in.imm_size, in.encoding, in.map, in.opcode, in.modrm_at,
                   in.segment, in.prefix_67);
            continue;
        }
        int m = x86_rewrite_rip(code, &in, out, (uintptr_t)at, (uintptr_t)target);
        if (m < 0) {
            puts("-1");
            continue;
        }
        for (int i = 0; i < m; i++)
            printf("%02x", out[i]);
        putchar('\n');
    }
    return 0;
}
