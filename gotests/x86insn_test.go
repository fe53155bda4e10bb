//go:build amd64

package gotests

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// emesh/lowmem/x86insn.c, the decoder the low-memory emulation re-executes a
// faulting instruction with, checked against objdump: the length of every
// instruction objdump decodes in a few real libraries and in code compiled
// here for AVX2 and AVX-512, the memory operand's base, index, scale and
// displacement against objdump's operand text, and each memory operand
// rewritten to [rip + disp32] disassembled again by objdump.

// x86Driver builds gotests/testdata/x86insn_driver.c with emesh/lowmem/x86insn.c,
// or skips when this is not amd64 or gcc or objdump is missing.
func x86Driver(t *testing.T) (driver, dir string) {
	t.Helper()
	if goruntime.GOARCH != "amd64" {
		t.Skip("SKIPPED: the x86-64 decoder is only tested on amd64")
	}
	for _, tool := range []string{"gcc", "objdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPED: %s not found: %v", tool, err)
		}
	}
	dir = t.TempDir()
	driver = filepath.Join(dir, "x86insn_driver")
	root := repoRoot()
	lowmem := filepath.Join(root, "emesh", "lowmem")
	out, err := exec.Command("gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I", lowmem,
		"-o", driver, filepath.Join(root, "gotests", "testdata", "x86insn_driver.c"),
		filepath.Join(lowmem, "x86insn.c")).CombinedOutput()
	if err != nil {
		t.Fatalf("building the driver: %v\n%s", err, out)
	}
	return driver, dir
}

// runDriver sends the request lines to the driver and returns its answers,
// one per request.
func runDriver(t *testing.T, driver string, requests []string) []string {
	t.Helper()
	var in bytes.Buffer
	for _, r := range requests {
		in.WriteString(r)
		in.WriteByte('\n')
	}
	cmd := exec.Command(driver)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("driver: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(requests) == 0 {
		return nil
	}
	if len(lines) != len(requests) {
		t.Fatalf("driver answered %d lines for %d requests", len(lines), len(requests))
	}
	return lines
}

// decoded is the driver's answer to a D request.
type decoded struct {
	length, memory, base, index, scale int
	disp                               int64
	dispSize, immSize                  int
	encoding, opcodeMap, opcode        int
	modrmAt, segment, prefix67         int
}

func parseDecoded(line string) (decoded, bool) {
	f := strings.Fields(line)
	if len(f) != 14 {
		return decoded{}, false
	}
	var v [14]int64
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return decoded{}, false
		}
		v[i] = n
	}
	i := func(k int) int { return int(v[k]) }
	return decoded{length: i(0), memory: i(1), base: i(2), index: i(3), scale: i(4), disp: v[5], dispSize: i(6),
		immSize: i(7), encoding: i(8), opcodeMap: i(9), opcode: i(10), modrmAt: i(11), segment: i(12), prefix67: i(13)}, true
}

// objInsn is one instruction as objdump -d -w shows it.
type objInsn struct {
	addr  uint64
	code  []byte
	text  string // mnemonic and operands, whitespace collapsed
	where string // file, for messages
}

// parseObjdumpLine splits "  addr:\tbytes \ttext" (objdump -d -w); ok is
// false for other lines and for lines without an instruction.
func parseObjdumpLine(line string) (insn objInsn, ok bool) {
	colon := strings.IndexByte(line, ':')
	if colon < 0 || colon+1 >= len(line) || line[colon+1] != '\t' {
		return insn, false
	}
	addr, err := strconv.ParseUint(strings.TrimSpace(line[:colon]), 16, 64)
	if err != nil {
		return insn, false
	}
	rest := line[colon+2:]
	tab := strings.IndexByte(rest, '\t')
	if tab < 0 {
		return insn, false
	}
	code, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(rest[:tab]), " ", ""))
	text := strings.Join(strings.Fields(rest[tab+1:]), " ")
	if err != nil || len(code) == 0 || text == "" {
		return insn, false
	}
	return objInsn{addr: addr, code: code, text: text}, true
}

var (
	prefixName = map[string]bool{"data16": true, "addr32": true, "cs": true, "ds": true, "es": true, "fs": true,
		"gs": true, "ss": true, "lock": true, "repz": true, "repnz": true, "rep": true, "notrack": true, "bnd": true,
		"xacquire": true, "xrelease": true}
	// objdump's names of an x87 control instruction with its FWAIT
	noWait = regexp.MustCompile(`^f(stcw|stsw|stenv|save|clex|init|disi|eni|setpm)\b`)
)

// onlyPrefixes tells objdump's text of prefixes it shows alone.
func onlyPrefixes(text string) bool {
	for _, f := range strings.Split(text, " ") {
		if !prefixName[f] && !(strings.HasPrefix(f, "rex") && strings.Trim(f[3:], ".WRXB") == "") {
			return false
		}
	}
	return true
}

// objdumpInsns disassembles with objdump and args. Left out: "(bad)" and
// ".byte" (what objdump cannot decode). Two conventions of objdump's are
// undone to get the CPU's instructions: a REX prefix that does not count
// (another prefix or REX follows it) is shown alone, and FWAIT (9B) is
// shown joined to the x87 instruction after it.
func objdumpInsns(t *testing.T, where string, args ...string) []objInsn {
	t.Helper()
	out, err := exec.Command("objdump", args...).Output()
	if err != nil {
		t.Fatalf("objdump %v: %v", args, err)
	}
	var insns []objInsn
	var pending []byte // lone REX bytes waiting for their instruction
	for len(out) > 0 {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			nl = len(out)
		}
		line := string(out[:nl])
		out = out[min(nl+1, len(out)):]
		insn, ok := parseObjdumpLine(line)
		if !ok {
			continue
		}
		insn.where = where
		if strings.Contains(insn.text, "(bad)") || strings.HasPrefix(insn.text, ".byte") {
			pending = nil
			continue
		}
		if onlyPrefixes(insn.text) {
			pending = append(pending, insn.code...)
			continue
		}
		if pending != nil {
			insn.addr -= uint64(len(pending))
			insn.code = append(pending, insn.code...)
			pending = nil
		}
		if at := opcodeAt(insn.code); at < len(insn.code)-1 && insn.code[at] == 0x9B {
			insns = append(insns, objInsn{addr: insn.addr, code: insn.code[:at+1], text: "fwait", where: where})
			insn.addr += uint64(at + 1)
			insn.code = insn.code[at+1:]
			insn.text = noWait.ReplaceAllString(insn.text, "fn$1")
		}
		insns = append(insns, insn)
	}
	return insns
}

// x86Snippet is compiled here at -O3 for AVX2 and AVX-512: vector loops
// with loads, stores, broadcasts, gathers, masks, conversions and scalar
// tails.
const x86Snippet = `
#include <stddef.h>
#include <stdint.h>
#include <string.h>
struct pt { double x, y, z; int tag; float w; };
void saxpy(float *restrict y, const float *restrict x, float a, size_t n) { for (size_t i = 0; i < n; i++) y[i] += a * x[i]; }
void daxpy(double *restrict y, const double *restrict x, double a, size_t n) { for (size_t i = 0; i < n; i++) y[i] = y[i] * a + x[i]; }
void gather(float *restrict out, const float *restrict in, const int *restrict idx, size_t n) { for (size_t i = 0; i < n; i++) out[i] = in[idx[i]] * 2.0f; }
void gatherd(double *restrict out, const double *restrict in, const long *restrict idx, size_t n) { for (size_t i = 0; i < n; i++) out[i] += in[idx[i]]; }
void scatter(float *restrict out, const float *restrict in, const int *restrict idx, size_t n) { for (size_t i = 0; i < n; i++) out[idx[i]] = in[i]; }
long isum(const int *a, size_t n) { long s = 0; for (size_t i = 0; i < n; i++) s += a[i]; return s; }
int bmax(const uint8_t *a, size_t n) { uint8_t m = 0; for (size_t i = 0; i < n; i++) m = a[i] > m ? a[i] : m; return m; }
void widen(int64_t *restrict o, const int8_t *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[i]; }
void widen16(int32_t *restrict o, const uint16_t *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[i] * 3; }
void narrow(uint8_t *restrict o, const uint32_t *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(a[i] >> 3); }
void cvt(double *restrict o, const float *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[i]; }
void cvti(float *restrict o, const int64_t *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = (float)a[i]; }
void cvtu(double *restrict o, const uint32_t *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[i]; }
void cond(float *restrict o, const float *restrict a, const float *restrict b, size_t n) { for (size_t i = 0; i < n; i++) if (a[i] > b[i]) o[i] = a[i] - b[i]; }
void pts(struct pt *p, size_t n, double s) { for (size_t i = 0; i < n; i++) { p[i].x *= s; p[i].y += p[i].z; p[i].tag ^= 5; p[i].w = (float)p[i].x; } }
void shifts(uint64_t *restrict o, const uint64_t *restrict a, const uint64_t *restrict b, size_t n) { for (size_t i = 0; i < n; i++) o[i] = (a[i] << (b[i] & 63)) | (a[i] >> 7); }
void mul16(int16_t *restrict o, const int16_t *restrict a, const int16_t *restrict b, size_t n) { for (size_t i = 0; i < n; i++) o[i] = (int16_t)(a[i] * b[i] + (a[i] >> 2)); }
void avg(uint8_t *restrict o, const uint8_t *restrict a, const uint8_t *restrict b, size_t n) { for (size_t i = 0; i < n; i++) o[i] = (uint8_t)((a[i] + b[i] + 1) >> 1); }
void fill(double *o, size_t n, double v) { for (size_t i = 0; i < n; i++) o[i] = v; }
void copy(char *restrict d, const char *restrict s, size_t n) { memcpy(d, s, n); }
size_t count(const char *s, char c, size_t n) { size_t k = 0; for (size_t i = 0; i < n; i++) k += s[i] == c; return k; }
double dot(const double *a, const double *b, size_t n) { double s = 0; for (size_t i = 0; i < n; i++) s += a[i] * b[i]; return s; }
float minf(const float *a, size_t n) { float m = a[0]; for (size_t i = 1; i < n; i++) m = a[i] < m ? a[i] : m; return m; }
void rev(int *restrict o, const int *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[n - 1 - i]; }
void stride(double *restrict o, const double *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[3 * i] + a[3 * i + 2]; }
void madd(int *restrict o, const short *restrict a, const short *restrict b, size_t n) { for (size_t i = 0; i < n; i++) o[i] += a[2*i] * b[2*i] + a[2*i+1] * b[2*i+1]; }
void sel(long *restrict o, const long *restrict a, long k, size_t n) { for (size_t i = 0; i < n; i++) o[i] = a[i] > k ? a[i] : k - a[i]; }
void dsqrt(double *restrict o, const double *restrict a, size_t n) { for (size_t i = 0; i < n; i++) o[i] = __builtin_sqrt(a[i]) / (a[i] + 1.0); }
`

// x86Objects compiles x86Snippet for AVX2 and AVX-512 into dir, and
// assembles x86EvexAssembly.
func x86Objects(t *testing.T, dir string) []string {
	t.Helper()
	src := filepath.Join(dir, "snippet.c")
	if err := os.WriteFile(src, []byte(x86Snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	asm := filepath.Join(dir, "evex.s")
	if err := os.WriteFile(asm, []byte(x86EvexAssembly()), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := []string{filepath.Join(dir, "evex.o")}
	if out, err := exec.Command("gcc", "-c", "-o", objs[0], asm).CombinedOutput(); err != nil {
		t.Fatalf("assembling %s: %v\n%s", asm, err, out)
	}
	for i, flags := range [][]string{{"-mavx2", "-mfma"}, {"-march=skylake-avx512"}, {"-march=icelake-server", "-mprefer-vector-width=512"}} {
		obj := filepath.Join(dir, fmt.Sprintf("snippet%d.o", i))
		args := append([]string{"-std=c99", "-O3", "-c", "-o", obj, src}, flags...)
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
		objs = append(objs, obj)
	}
	return objs
}

// x86EvexAssembly lists AVX-512 instructions, each with the memory operand
// 0x40(%rax), which the assembler encodes as disp8*N whatever N is (64/N
// fits in a disp8): the decoder's N for each is checked against objdump's
// displacement. The vector forms come at 512, 256 and 128 bits (registers
// 16 and up: EVEX only), some with broadcast.
func x86EvexAssembly() string {
	fields := strings.Fields
	var (
		vec3 = fields(`vaddps vaddpd vsubps vmulpd vdivps vminpd vmaxps vandps vandnpd vorps vxorpd vunpcklps vunpckhpd
			vpaddb vpaddw vpaddd vpaddq vpsubb vpsubw vpsubd vpsubq vpaddsb vpaddusw vpsubsw vpsubusb vpmullw
			vpmulld vpmullq vpmulhw vpmulhuw vpmulhrsw vpmuldq vpmuludq vpmaddwd vpmaddubsw vpavgb vpavgw
			vpminsb vpminsw vpminsd vpminsq vpminub vpminuw vpminud vpminuq vpmaxsb vpmaxsd vpmaxuw vpmaxuq
			vpandd vpandq vpandnd vpandnq vpord vporq vpxord vpxorq vpunpcklbw vpunpcklwd vpunpckldq vpunpcklqdq
			vpunpckhbw vpunpckhwd vpunpckhdq vpunpckhqdq vpacksswb vpackssdw vpackuswb vpackusdw vpshufb vpsadbw
			vpermi2b vpermi2w vpermi2d vpermi2q vpermi2ps vpermi2pd vpermt2b vpermt2w vpermt2d vpermt2q
			vpermt2ps vpermt2pd vpermb vpermw vpsllvw vpsllvd vpsllvq vpsrlvw vpsrlvd vpsrlvq vpsravw vpsravd
			vpsravq vprolvd vprolvq vprorvd vprorvq vscalefps vscalefpd vpblendmb vpblendmw vpblendmd vpblendmq
			vblendmps vblendmpd vfmadd132ps vfmadd213pd vfmadd231ps vfmsub132pd vfmsub231ps vfnmadd213ps
			vfnmsub231pd vfmaddsub132ps vfmsubadd231pd vpdpbusd vpdpbusds vpdpwssd vpdpwssds vpmadd52luq
			vpmadd52huq vpmultishiftqb vpshldvw vpshldvd vpshldvq vpshrdvw vpshrdvd vpshrdvq vaesenc vaesenclast
			vaesdec vaesdeclast vgf2p8mulb vpermilps vpermilpd vpsllw vpslld vpsllq vpsrlw vpsrld vpsrlq vpsraw
			vpsrad vpsraq vcvtne2ps2bf16`)
		vec3zy = fields(`vpermd vpermq vpermps vpermpd`)
		cmpk   = fields(`vpcmpeqb vpcmpeqw vpcmpeqd vpcmpeqq vpcmpgtb vpcmpgtw vpcmpgtd vpcmpgtq vptestmb vptestmw vptestmd
			vptestmq vptestnmb vptestnmd vpshufbitqmb`)
		imm3 = fields(`vpternlogd vpternlogq valignd valignq vshufps vshufpd vpalignr vdbpsadbw vrangeps vrangepd
			vfixupimmps vfixupimmpd vpclmulqdq vgf2p8affineqb vgf2p8affineinvqb vpshldw vpshldd vpshldq vpshrdw
			vpshrdd vpshrdq`)
		imm3zy = fields(`vshuff32x4 vshuff64x2 vshufi32x4 vshufi64x2`)
		immk   = fields(`vcmpps vcmppd vpcmpb vpcmpub vpcmpw vpcmpuw vpcmpd vpcmpud vpcmpq vpcmpuq`)
		imm2   = fields(`vpshufd vpshufhw vpshuflw vpermilps vpermilpd vrndscaleps vrndscalepd vgetmantps vgetmantpd
			vreduceps vreducepd vpsrldq vpslldq vpsrlw vpsllw vpsraw vpsrld vpslld vpsrad vpsraq vprold vprolq
			vprord vprorq vpsrlq vpsllq`)
		imm2zy = fields(`vpermq vpermpd`)
		load   = fields(`vmovups vmovaps vmovupd vmovapd vmovdqu8 vmovdqu16 vmovdqu32 vmovdqu64 vmovdqa32 vmovdqa64 vmovntdqa
			vbroadcastss vpbroadcastb vpbroadcastw vpbroadcastd vpbroadcastq vmovddup vmovsldup vmovshdup
			vpmovsxbw vpmovsxbd vpmovsxbq vpmovsxwd vpmovsxwq vpmovsxdq vpmovzxbw vpmovzxbd vpmovzxbq vpmovzxwd
			vpmovzxwq vpmovzxdq vcvtps2pd vcvtdq2pd vcvtudq2pd vcvtph2ps vpabsb vpabsw vpabsd vpabsq vpopcntb
			vpopcntw vpopcntd vpopcntq vplzcntd vplzcntq vpconflictd vpconflictq vrcp14ps vrcp14pd vrsqrt14ps
			vrsqrt14pd vgetexpps vgetexppd vcvtqq2pd vcvtuqq2pd vcvtdq2ps vcvtudq2ps vcvtps2dq vcvttps2dq
			vcvtps2udq vcvttps2udq vcvtpd2qq vcvttpd2qq vcvtpd2uqq vcvtps2qq vcvttps2qq vcvtps2uqq vcvttps2uqq
			vpexpandb vpexpandw vpexpandd vpexpandq vexpandps vexpandpd vsqrtps vsqrtpd`)
		loadzy = fields(`vbroadcastsd vbroadcastf32x4 vbroadcasti32x4 vbroadcastf64x2 vbroadcasti64x2 vbroadcastf32x2`)
		loadz  = fields(`vbroadcastf64x4 vbroadcasti64x4 vbroadcastf32x8 vbroadcasti32x8`)
		store  = fields(`vmovups vmovaps vmovupd vmovapd vmovdqu8 vmovdqu16 vmovdqu32 vmovdqu64 vmovdqa32 vmovdqa64 vmovntdq
			vmovntps vmovntpd vpmovwb vpmovswb vpmovuswb vpmovdb vpmovsdb vpmovusdb vpmovqb vpmovsqb vpmovusqb
			vpmovdw vpmovsdw vpmovusdw vpmovqw vpmovsqw vpmovusqw vpmovqd vpmovsqd vpmovusqd vpcompressb
			vpcompressw vpcompressd vpcompressq vcompressps vcompresspd`)
		scalar3 = fields(`vaddss vaddsd vsubss vmulsd vdivss vminsd vmaxss vsqrtss vsqrtsd vcvtss2sd vcvtsd2ss vscalefss
			vscalefsd vgetexpss vgetexpsd vrcp14ss vrcp14sd vrsqrt14ss vrsqrt14sd vfmadd132ss vfmadd231sd
			vfnmsub213ss vfmsub132sd`)
	)
	var b strings.Builder
	emit := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	widths := [][2]string{{"%zmm1", "%zmm2"}, {"%ymm17", "%ymm18"}, {"%xmm17", "%xmm18"}}
	bcst32 := []string{"1to16", "1to8", "1to4"}
	bcst64 := []string{"1to8", "1to4", "1to2"}
	for i, w := range widths {
		a, s := w[0], w[1]
		for _, m := range vec3 {
			emit("%s 0x40(%%rax),%s,%s", m, s, a)
		}
		for _, m := range cmpk {
			emit("%s 0x40(%%rax),%s,%%k1", m, s)
		}
		for _, m := range imm3 {
			emit("%s $1,0x40(%%rax),%s,%s", m, s, a)
		}
		for _, m := range immk {
			emit("%s $1,0x40(%%rax),%s,%%k1", m, s)
		}
		for _, m := range imm2 {
			emit("%s $1,0x40(%%rax),%s", m, a)
		}
		for _, m := range load {
			emit("%s 0x40(%%rax),%s", m, a)
		}
		for _, m := range store {
			emit("%s %s,0x40(%%rax)", m, a)
		}
		for _, m := range fields("vaddps vpaddd vpxord vpminud vfmadd231ps vpermt2d vunpcklps") {
			emit("%s 0x40(%%rax){%s},%s,%s", m, bcst32[i], s, a)
		}
		for _, m := range fields("vaddpd vpaddq vpandq vpmuludq vmulpd") {
			emit("%s 0x40(%%rax){%s},%s,%s", m, bcst64[i], s, a)
		}
		emit("vpternlogd $1,0x40(%%rax){%s},%s,%s", bcst32[i], s, a)
		emit("vpshufd $1,0x40(%%rax){%s},%s", bcst32[i], a)
		emit("vcmpps $1,0x40(%%rax){%s},%s,%%k1", bcst32[i], s)
		emit("vcvtdq2pd 0x40(%%rax){%s},%s", bcst64[i], a)
		emit("vcvtps2pd 0x40(%%rax){%s},%s", bcst64[i], a)
		if i < 2 { // 512 and 256 bits only
			for _, m := range vec3zy {
				emit("%s 0x40(%%rax),%s,%s", m, s, a)
			}
			for _, m := range imm3zy {
				emit("%s $1,0x40(%%rax),%s,%s", m, s, a)
			}
			for _, m := range imm2zy {
				emit("%s $1,0x40(%%rax),%s", m, a)
			}
			for _, m := range loadzy {
				emit("%s 0x40(%%rax),%s", m, a)
			}
			emit("vinsertf32x4 $1,0x40(%%rax),%s,%s", s, a)
			emit("vinserti64x2 $1,0x40(%%rax),%s,%s", s, a)
			emit("vextractf32x4 $1,%s,0x40(%%rax)", a)
			emit("vextracti64x2 $1,%s,0x40(%%rax)", a)
		}
		if i == 0 { // 512 bits only
			for _, m := range loadz {
				emit("%s 0x40(%%rax),%s", m, a)
			}
			emit("vinsertf64x4 $1,0x40(%%rax),%s,%s", s, a)
			emit("vinserti32x8 $1,0x40(%%rax),%s,%s", s, a)
			emit("vextracti64x4 $1,%s,0x40(%%rax)", a)
			emit("vextractf32x8 $1,%s,0x40(%%rax)", a)
		}
	}
	for _, m := range scalar3 {
		emit("%s 0x40(%%rax),%%xmm18,%%xmm17", m)
	}
	b.WriteString(x86EvexScalars)
	return b.String()
}

// x86EvexScalars are the AVX-512 scalar, element and VSIB forms.
const x86EvexScalars = `vmovss 0x40(%rax),%xmm17
vmovsd 0x40(%rax),%xmm17
vmovss %xmm17,0x40(%rax)
vmovsd %xmm17,0x40(%rax)
vmovd 0x40(%rax),%xmm17
vmovq 0x40(%rax),%xmm17
vmovd %xmm17,0x40(%rax)
vmovq %xmm17,0x40(%rax)
vmovlps 0x40(%rax),%xmm18,%xmm17
vmovhpd 0x40(%rax),%xmm18,%xmm17
vmovlps %xmm17,0x40(%rax)
vmovhps %xmm17,0x40(%rax)
vpinsrb $1,0x40(%rax),%xmm18,%xmm17
vpinsrw $1,0x40(%rax),%xmm18,%xmm17
vpinsrd $1,0x40(%rax),%xmm18,%xmm17
vpinsrq $1,0x40(%rax),%xmm18,%xmm17
vpextrb $1,%xmm17,0x40(%rax)
vpextrw $1,%xmm17,0x40(%rax)
vpextrd $1,%xmm17,0x40(%rax)
vpextrq $1,%xmm17,0x40(%rax)
vinsertps $1,0x40(%rax),%xmm18,%xmm17
vextractps $1,%xmm17,0x40(%rax)
vucomiss 0x40(%rax),%xmm17
vcomisd 0x40(%rax),%xmm17
vcvtss2si 0x40(%rax),%r8d
vcvttsd2si 0x40(%rax),%r8
vcvtsd2usi 0x40(%rax),%r8d
vcvtsi2ssl 0x40(%rax),%xmm18,%xmm17
vcvtsi2sdq 0x40(%rax),%xmm18,%xmm17
vcvtusi2ssl 0x40(%rax),%xmm18,%xmm17
vrndscaless $1,0x40(%rax),%xmm18,%xmm17
vrangesd $1,0x40(%rax),%xmm18,%xmm17
vgetmantss $1,0x40(%rax),%xmm18,%xmm17
vfixupimmsd $1,0x40(%rax),%xmm18,%xmm17
vreducess $1,0x40(%rax),%xmm18,%xmm17
vcmpss $1,0x40(%rax),%xmm18,%k1
vcmpsd $1,0x40(%rax),%xmm18,%k1
vpbroadcastb 0x40(%rax),%zmm1
vpbroadcastw 0x40(%rax),%zmm1
vgatherdps 0x40(%rax,%zmm3,4),%zmm1{%k1}
vpgatherqq 0x40(%rax,%zmm3,8),%zmm1{%k1}
vscatterdpd %zmm1,0x40(%rax,%ymm3,8){%k1}
vmovdqu64 0x40(%rax),%zmm1{%k1}{z}
vmovdqu8 %zmm1,0x40(%rax){%k2}
`

// x86Binaries are the real libraries disassembled: a mix of compiled and
// hand-written SSE, AVX2 and AVX-512 code.
func x86Binaries() []string {
	var found []string
	for _, pattern := range []string{"libc.so.6", "libm.so.6", "libcrypto.so.*", "libstdc++.so.6"} {
		if paths, _ := filepath.Glob(filepath.Join("/lib/x86_64-linux-gnu", pattern)); len(paths) > 0 {
			found = append(found, paths[0])
		}
	}
	return found
}

// x86Corpus disassembles the binaries and the compiled snippet, objdump
// runs in parallel. Each encoding is kept once: the decoder sees only the
// bytes, and objdump's operand text is the same wherever they stand.
func x86Corpus(t *testing.T, dir string) []objInsn {
	t.Helper()
	files := append(x86Binaries(), x86Objects(t, dir)...)
	parts := make([][]objInsn, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i] = objdumpInsns(t, filepath.Base(f), "-d", "-w", f)
		}()
	}
	wg.Wait()
	var all []objInsn
	seen := map[string]bool{}
	for i, p := range parts {
		distinct := 0
		for _, insn := range p {
			if !seen[string(insn.code)] {
				seen[string(insn.code)] = true
				all = append(all, insn)
				distinct++
			}
		}
		t.Logf("%s: %d instructions, %d encodings not seen before", files[i], len(p), distinct)
	}
	return all
}

// x86Regs numbers objdump's register names in memory operands; riz and eiz
// are objdump's name for "no index" in a SIB byte.
var x86Regs = func() map[string]int {
	m := map[string]int{"rip": 16, "eip": 16, "riz": -1, "eiz": -1}
	for i, r := range []string{"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"} {
		m["r"+r] = i
		m["e"+r] = i
	}
	for i := 8; i < 16; i++ {
		m[fmt.Sprintf("r%d", i)] = i
		m[fmt.Sprintf("r%dd", i)] = i
	}
	for i := 0; i < 32; i++ {
		for _, v := range []string{"xmm", "ymm", "zmm"} {
			m[fmt.Sprintf("%s%d", v, i)] = i
		}
	}
	return m
}()

// An AT&T memory operand (a segment override is not part of the match).
var attMemory = regexp.MustCompile(`(-?0x[0-9a-f]+)?\((%[a-z0-9]+)?(?:,(%[a-z0-9]+))?(?:,([1248]))?\)`)

// checkOperand compares the decoded memory operand with objdump's text.
func checkOperand(insn objInsn, d decoded) error {
	m := attMemory.FindStringSubmatch(insn.text)
	if m == nil {
		if d.base == -1 && d.index == -1 {
			return nil // an absolute address: objdump shows a bare number
		}
		return fmt.Errorf("no memory operand in objdump's text")
	}
	want := decoded{base: -1, index: -1, scale: 1}
	if m[1] != "" {
		v, err := strconv.ParseInt(strings.Replace(m[1], "0x", "", 1), 16, 64)
		if err != nil {
			return err
		}
		want.disp = v
	}
	for _, r := range []struct {
		name string
		to   *int
	}{{m[2], &want.base}, {m[3], &want.index}} {
		if r.name != "" {
			n, ok := x86Regs[r.name[1:]]
			if !ok {
				return fmt.Errorf("register %s unknown", r.name)
			}
			*r.to = n
		}
	}
	if m[4] != "" && want.index != -1 {
		want.scale = int(m[4][0] - '0')
	}
	if d.base != want.base || d.index != want.index || d.scale != want.scale || d.disp != want.disp {
		return fmt.Errorf("decoded base %d index %d scale %d disp %#x, objdump %s (base %d index %d scale %d disp %#x)",
			d.base, d.index, d.scale, d.disp, m[0], want.base, want.index, want.scale, want.disp)
	}
	return nil
}

// opcodeAt skips the legacy prefixes and REX of code: the offset of the
// opcode (or of C4, C5, 62, 8F).
func opcodeAt(code []byte) int {
	for i, b := range code {
		switch {
		case b == 0x66 || b == 0x67 || b == 0xF2 || b == 0xF3 || b == 0xF0 || b == 0x26 || b == 0x2E || b == 0x36 ||
			b == 0x3E || b == 0x64 || b == 0x65 || b&0xF0 == 0x40:
		default:
			return i
		}
	}
	return len(code)
}

// x86Difference names the classes of instructions where the decoder and
// objdump differ on purpose, or "":
func x86Difference(code []byte) string {
	i := opcodeAt(code)
	if i+1 >= len(code) {
		return ""
	}
	op, next := code[i], code[i+1]
	has66 := bytes.IndexByte(code[:i], 0x66) >= 0
	switch {
	case op == 0x8F && next&0x1F >= 8:
		return "XOP (AMD): not decoded"
	case op == 0x0F && next == 0x0F:
		return "3DNow! (AMD): not decoded"
	case (op == 0xC4 || op == 0xC5 || op == 0x62) && i > 0 && bytes.ContainsFunc(code[:i], func(r rune) bool {
		return r == 0x66 || r == 0xF2 || r == 0xF3 || r == 0xF0 || r&0xF0 == 0x40
	}):
		// #UD on the CPU; objdump shows the prefix and decodes the rest
		return "66/F2/F3/F0/REX before VEX or EVEX: not decoded"
	case has66 && (op == 0xE8 || op == 0xE9 || op == 0x0F && next&0xF0 == 0x80):
		// Intel's CPUs ignore 66 on near branches in 64-bit mode (the
		// decoder's view, rel32); objdump decodes AMD's rel16
		return "66 on a near branch"
	}
	return ""
}

func TestX86Decoder(t *testing.T) {
	driver, dir := x86Driver(t)
	corpus := x86Corpus(t, dir)
	requests := make([]string, len(corpus))
	for i, insn := range corpus {
		requests[i] = "D " + hex.EncodeToString(insn.code)
	}
	answers := runDriver(t, driver, requests)
	decodes := make([]decoded, len(corpus))
	var checked, memory, evexDisp8, failures int
	differ := map[string]int{}
	fail := func(insn objInsn, format string, args ...any) {
		failures++
		if failures <= 40 {
			t.Errorf("%s %#x: % x %s: %s", insn.where, insn.addr, insn.code, insn.text, fmt.Sprintf(format, args...))
		}
	}
	for i, insn := range corpus {
		d, ok := parseDecoded(answers[i])
		if why := x86Difference(insn.code); why != "" {
			differ[why]++
			continue
		}
		switch {
		case !ok:
			fail(insn, "not decoded")
		case d.length != len(insn.code):
			fail(insn, "decoded length %d, objdump %d", d.length, len(insn.code))
		default:
			checked++
			decodes[i] = d
			if d.memory == 1 {
				memory++
				if d.encoding == 2 && d.dispSize == 1 {
					evexDisp8++
				}
				if err := checkOperand(insn, d); err != nil {
					fail(insn, "%v", err)
				}
			}
		}
	}
	t.Logf("lengths: %d instructions decoded to objdump's length, %d memory operands matching objdump's (%d EVEX disp8*N); %d failures",
		checked, memory, evexDisp8, failures)
	for why, n := range differ {
		t.Logf("left out: %d instructions: %s", n, why)
	}
	if checked < 200000 {
		t.Errorf("only %d instructions checked", checked)
	}
	x86CheckRewrites(t, driver, dir, corpus, decodes)
}

// The rewritten instructions are placed in 16-byte slots from rewriteBase
// (the rest of a slot is NOPs) and name targets below 4 GiB, so that the
// operands with the 67 prefix (32-bit addresses) reach them too.
const (
	rewriteBase = 0x80000000
	rewriteMax  = 100000 // rewrites checked at most (sampled evenly)
)

var (
	ripOperand  = regexp.MustCompile(`-?0x[0-9a-f]+\(%[er]ip\)`)
	ripTarget   = regexp.MustCompile(` # (0x[0-9a-f]+)$`)
	rexToken    = regexp.MustCompile(`\brex(?:\.[WRXB]+)?\b ?`)
	comment     = regexp.MustCompile(` ?(?:#.*|<[^>]*>)$`)
	bareAddress = regexp.MustCompile(`^\*?0x[0-9a-f]+$`)
	sibMnemonic = regexp.MustCompile(`^(?:bndldx|bndstx|tileload|tilestore)`)
)

// sibOnly tells the operands that need their SIB byte (a vector index, or
// MPX's and AMX's SIB that is not an address): not rewritable.
func sibOnly(text string) bool {
	m := attMemory.FindStringSubmatch(text)
	return m != nil && strings.Contains(m[3], "mm") || sibMnemonic.MatchString(text)
}

// normalText is an instruction's text for comparing before and after the
// rewrite: the memory operand as MEM, no comment, no REX shown alone. An
// absolute operand (no base, no index) is a bare number in objdump's text.
func normalText(text string, memory *regexp.Regexp, absolute bool) string {
	text = comment.ReplaceAllString(text, "")
	text = rexToken.ReplaceAllString(text, "")
	if loc := memory.FindStringIndex(text); loc != nil {
		text = text[:loc[0]] + "MEM" + text[loc[1]:]
	} else if absolute {
		mnemonic, operands, _ := strings.Cut(text, " ")
		list := strings.Split(operands, ",")
		for i, o := range list {
			if bareAddress.MatchString(o) {
				list[i] = strings.TrimRight(o, "0123456789abcdefx") + "MEM"
				break
			}
		}
		text = mnemonic + " " + strings.Join(list, ",")
	}
	return strings.TrimSpace(text)
}

// x86CheckRewrites rewrites the memory operands (not RIP-relative already,
// no segment override) to [rip + disp32] and disassembles the results: the
// same instruction with the operand at the target.
func x86CheckRewrites(t *testing.T, driver, dir string, corpus []objInsn, decodes []decoded) {
	// every VEX and EVEX one, the legacy ones sampled evenly
	var chosen, legacy []int
	for i, d := range decodes {
		if d.memory == 1 && d.base != 16 && d.segment == 0 {
			if d.encoding == 0 {
				legacy = append(legacy, i)
			} else {
				chosen = append(chosen, i)
			}
		}
	}
	step := max(1, (len(legacy)+rewriteMax-len(chosen)-1)/max(1, rewriteMax-len(chosen)))
	for k := 0; k < len(legacy); k += step {
		chosen = append(chosen, legacy[k])
	}
	requests := make([]string, len(chosen))
	targets := make([]uint64, len(chosen))
	seed := uint64(0x9E3779B97F4A7C15)
	for k, i := range chosen {
		seed = seed*6364136223846793005 + 1442695040888963407
		at := uint64(rewriteBase + 16*k)
		targets[k] = at + seed>>33 - 0x40000000 // within 1 GiB either way
		if k%7 == 0 {
			targets[k] = at + 0x7ff00000 - uint64(k)*16 // near the far end of reach
		}
		requests[k] = fmt.Sprintf("R %s %x %x", hex.EncodeToString(corpus[i].code), at, targets[k])
	}
	answers := runDriver(t, driver, requests)
	blob := bytes.Repeat([]byte{0x90}, 16*len(chosen))
	outs := make([][]byte, len(chosen))
	var refused, failures int
	fail := func(insn objInsn, format string, args ...any) {
		failures++
		if failures <= 40 {
			t.Errorf("rewrite %s %#x: % x %s: %s", insn.where, insn.addr, insn.code, insn.text, fmt.Sprintf(format, args...))
		}
	}
	for k, i := range chosen {
		insn, d := corpus[i], decodes[i]
		tooLong := d.modrmAt+5+d.immSize > 15
		if answers[k] == "-1" {
			refused++
			if !tooLong && !sibOnly(insn.text) {
				fail(insn, "not rewritten")
			}
			continue
		}
		code, err := hex.DecodeString(answers[k])
		if err != nil || len(code) == 0 || len(code) > 15 || tooLong || sibOnly(insn.text) {
			fail(insn, "rewritten to %s", answers[k])
			continue
		}
		outs[k] = code
		copy(blob[16*k:], code)
	}
	file := filepath.Join(dir, "rewritten.bin")
	if err := os.WriteFile(file, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	shown := map[uint64]objInsn{}
	for _, insn := range objdumpInsns(t, "rewritten", "-D", "-w", "-b", "binary", "-m", "i386:x86-64",
		fmt.Sprintf("--adjust-vma=%#x", rewriteBase), file) {
		shown[insn.addr] = insn
	}
	var rewritten int
	for k, i := range chosen {
		if outs[k] == nil {
			continue
		}
		orig := corpus[i]
		got, ok := shown[uint64(rewriteBase+16*k)]
		switch {
		case !ok || !bytes.Equal(got.code, outs[k]):
			fail(orig, "rewritten % x, objdump decodes % x %s", outs[k], got.code, got.text)
			continue
		case normalText(got.text, ripOperand, false) != normalText(orig.text, attMemory, decodes[i].base == -1 && decodes[i].index == -1):
			fail(orig, "rewritten % x: objdump %s", outs[k], got.text)
			continue
		}
		m := ripTarget.FindStringSubmatch(got.text)
		if target, err := strconv.ParseUint(strings.TrimPrefix(safeIndex(m, 1), "0x"), 16, 64); err != nil || target != targets[k] {
			fail(orig, "rewritten % x: objdump %s, target %#x", outs[k], got.text, targets[k])
			continue
		}
		rewritten++
	}
	t.Logf("rewrites: %d memory operands made RIP-relative and disassembled the same, %d refused (SIB needed or longer than 15 bytes); %d failures",
		rewritten, refused, failures)
}

func safeIndex(m []string, i int) string {
	if i < len(m) {
		return m[i]
	}
	return ""
}

// TestX86DecodeCases checks the awkward encodings one by one.
func TestX86DecodeCases(t *testing.T) {
	driver, _ := x86Driver(t)
	cases := []struct {
		code string
		want string // the driver's answer: "-1", or its first fields
	}{
		{"f6c101", "3 0 -1 -1 1 0 0 1"},                  // test $1,%cl: F6 /0 ib
		{"f6d1", "2 0 -1 -1 1 0 0 0"},                    // not %cl: F6 /2, no immediate
		{"f7c001000000", "6 0 -1 -1 1 0 0 4"},            // test $1,%eax: F7 /0 id
		{"66f7c00100", "5 0 -1 -1 1 0 0 2"},              // with 66: iw
		{"48f7c001000000", "7 0 -1 -1 1 0 0 4"},          // REX.W: still id
		{"f7d8", "2 0 -1 -1 1 0 0 0"},                    // neg: F7 /3
		{"66c7000100", "5 1 0 -1 1 0 0 2"},               // movw $1,(%rax)
		{"48c70001000000", "7 1 0 -1 1 0 0 4"},           // movq $1,(%rax)
		{"a01122334455667788", "9 0 -1 -1 1 0 0 8"},      // movabs 0x8877665544332211,%al
		{"67a011223344", "6 0 -1 -1 1 0 0 4"},            // with 67: a 32-bit moffs
		{"48b81122334455667788", "10 0 -1 -1 1 0 0 8"},   // movabs $imm64,%rax
		{"66b80100", "4 0 -1 -1 1 0 0 2"},                // mov $1,%ax
		{"6648b81122334455667788", "11 0 -1 -1 1 0 0 8"}, // REX.W wins over 66
		{"e800000000", "5 0 -1 -1 1 0 0 4"},              // call rel32
		{"0f8400000000", "6 0 -1 -1 1 0 0 4"},            // je rel32
		{"c8100001", "4 0 -1 -1 1 0 0 3"},                // enter $0x10,$1
		{"c20800", "3 0 -1 -1 1 0 0 2"},                  // ret $8
		{"ca0800", "3 0 -1 -1 1 0 0 2"},                  // lret $8
		{"9a112233445566", "-1"},                         // lcall: invalid in 64-bit mode
		{"ea112233445566", "-1"},                         // ljmp: invalid in 64-bit mode
		{"0f0fc1b4", "-1"},                               // 3DNow! pfmul
		{"8fe878c2ec0e", "-1"},                           // XOP vprotd
		{"660f78c00102", "6 0 -1 -1 1 0 0 2"},            // extrq $1,$2,%xmm0
		{"f20f78c10102", "6 0 -1 -1 1 0 0 2"},            // insertq $1,$2,%xmm1,%xmm0
		{"0f78c1", "3 0 -1 -1 1 0 0 0"},                  // vmread %rax,%rcx
		{"480f2000", "4 0 -1 -1 1 0 0 0"},                // mov %cr0,%rax: mod ignored
		{"486689c0", "4 0 -1 -1 1 0 0 0"},                // REX then 66: REX ignored
		{"418b0424", "4 1 12 -1 1 0 0 0"},                // mov (%r12),%eax
		{"428b0424", "4 1 4 12 1 0 0 0"},                 // REX.X: index 100 is r12
		{"8b04254433", "-1"},                             // truncated
		{"8b042544332211", "7 1 -1 -1 1 287454020 4 0"},  // mov 0x11223344,%eax: no base, no index
		{"418b4500", "4 1 13 -1 1 0 1 0"},                // mov 0x0(%r13),%eax
		{"4a8b44e5f8", "5 1 5 12 8 -8 1 0"},              // mov -0x8(%rbp,%r12,8),%rax
		{"8b0510000000", "6 1 16 -1 1 16 4 0"},           // mov 0x10(%rip),%eax
		{"678b00", "3 1 0 -1 1 0 0 0"},                   // mov (%eax),%eax
		{"c5f877", "3 0 -1 -1 1 0 0 0"},                  // vzeroupper
		{"c4e37d18c101", "6 0 -1 -1 1 0 0 1"},            // vinsertf128: map 3, imm8
		{"c5fd70c101", "5 0 -1 -1 1 0 0 1"},              // vpshufd: map 1 70, imm8
		{"48c5f877", "-1"},                               // REX before VEX: #UD
		{"62f17c48104e01", "7 1 6 -1 1 64 1 0"},          // vmovups 0x40(%rsi),%zmm1
		{"62f17c58584e01", "7 1 6 -1 1 4 1 0"},           // vaddps 0x4(%rsi){1to16},%zmm0,%zmm1
		{"62f17e08104e01", "7 1 6 -1 1 4 1 0"},           // vmovss 0x4(%rsi),%xmm1
		{"62f1ff08104e01", "7 1 6 -1 1 8 1 0"},           // vmovsd 0x8(%rsi),%xmm1
		{"62f17c48014e01", "-1"},                         // unknown EVEX opcode with a disp8: N unknown
		{"62f27d49920488", "7 1 0 1 4 0 0 0"},            // vgatherdps (%rax,%zmm1,4),%zmm0{%k1}: VSIB
		{"666666666666666666666666666690", "15 0 -1 -1 1 0 0 0"},
		{"66666666666666666666666666666690", "-1"}, // 16 bytes
	}
	requests := make([]string, len(cases))
	for i, c := range cases {
		requests[i] = "D " + c.code
	}
	for i, got := range runDriver(t, driver, requests) {
		if !strings.HasPrefix(got+" ", cases[i].want+" ") {
			t.Errorf("%s: decoded %q, want %q...", cases[i].code, got, cases[i].want)
		}
	}
	rewrites := []struct {
		code, at, target, want string
	}{
		{"4a8b44e508", "1000", "2000", "488b05f90f0000"},                 // mov 0x8(%rbp,%r12,8),%rax
		{"41c744240801000000", "1000", "2000", "40c705f50f000001000000"}, // movl $1,0x8(%r12): imm after disp
		{"62d17c48104c2401", "1000", "2000", "62f17c48100df60f0000"},     // vmovups 0x40(%r12),%zmm1
		{"c4c17d6f442408", "1000", "800", "c4e17d6f05f7f7ffff"},          // vmovdqa 0x8(%r12),%ymm0: VEX3 X and B set
		{"4a8b44e508", "1000", "80001007", "-1"},                         // 2 GiB away: out of reach
		{"62f27d49920488", "1000", "2000", "-1"},                         // VSIB
		{"666666666666480f3a0f44240801", "0", "1000", "-1"},              // 16 bytes once rewritten
		{"678b00", "1000", "100002000", "-1"},                            // 67: the target must be below 4 GiB
	}
	requests = requests[:0]
	for _, r := range rewrites {
		requests = append(requests, fmt.Sprintf("R %s %s %s", r.code, r.at, r.target))
	}
	for i, got := range runDriver(t, driver, requests) {
		if got != rewrites[i].want {
			t.Errorf("%s at %s to %s: rewritten %s, want %s", rewrites[i].code, rewrites[i].at, rewrites[i].target, got, rewrites[i].want)
		}
	}
}
