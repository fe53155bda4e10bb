package engine

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// KernelPathEnv lists extra directories (colon separated) searched for
// kernel files after the host executable's directory and the current one.
const KernelPathEnv = "EBSP_KERNEL_PATH"

// emEpiphany is the ELF machine number of Adapteva's Epiphany.
const emEpiphany = elf.Machine(0x1223)

// KernelSearchDirs lists where bsp_init looks for a kernel file, in order:
// the host executable's directory (EBSP's rule), the current directory,
// then EBSP_KERNEL_PATH.
func KernelSearchDirs(exeDir, cwd, kernelPath string) []string {
	dirs := []string{exeDir, cwd}
	for _, d := range filepath.SplitList(kernelPath) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// FindKernelFile resolves a bsp_init name to a loadable kernel file. A name
// with a slash is a path. A name ending in .srec (what EBSP hosts pass) also
// matches the same stem with .elf, which is what our builds produce.
func FindKernelFile(name string, dirs []string) (string, error) {
	if name == "" { // every search directory would be a candidate
		return "", fmt.Errorf("empty kernel name; pass the kernel file's name, e.g. \"e_hello.elf\"")
	}
	candidates := []string{name}
	if stem, ok := strings.CutSuffix(name, ".srec"); ok {
		candidates = append(candidates, stem+".elf")
	}
	var firstBad error
	var looked []string
	for _, cand := range candidates {
		for _, path := range candidatePaths(cand, dirs) {
			looked = append(looked, path)
			info, err := os.Stat(path)
			if err != nil {
				continue
			}
			if info.IsDir() {
				if firstBad == nil {
					firstBad = fmt.Errorf("%s is a directory, not a kernel file", path)
				}
				continue
			}
			err = CheckKernelFile(path)
			if err == nil {
				return path, nil
			}
			if firstBad == nil {
				firstBad = err
			}
		}
	}
	if firstBad != nil {
		return "", firstBad
	}
	return "", fmt.Errorf("kernel %q not found (looked in: %s); build it with "+
		"`gcc -shared -fPIC $(pkg-config --cflags ebsp) e_yourkernel.c -o %s` next to the host program, "+
		"or set %s", name, strings.Join(looked, ", "), elfName(name), KernelPathEnv)
}

func candidatePaths(name string, dirs []string) []string {
	if strings.ContainsRune(name, '/') {
		return []string{name}
	}
	var paths []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}

func elfName(name string) string {
	base := filepath.Base(name)
	if stem, ok := strings.CutSuffix(base, ".srec"); ok {
		return stem + ".elf"
	}
	return base
}

// CheckKernelFile tells whether path is a shared object for this host, and
// if not, what it is and how to rebuild it.
func CheckKernelFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("kernel file %s: %v", path, err)
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	rebuild := fmt.Sprintf("rebuild it for the emulator with `gcc -shared -fPIC $(pkg-config --cflags ebsp) e_yourkernel.c -o %s`", filepath.Base(path))
	if isSRecord(head) {
		return fmt.Errorf("kernel file %s is a Motorola S-record for the Epiphany chip, not a host shared object; %s", path, rebuild)
	}
	if !bytes.HasPrefix(head, []byte(elf.ELFMAG)) {
		return fmt.Errorf("kernel file %s is not an ELF shared object; %s", path, rebuild)
	}
	if rawMachine(head) == emEpiphany {
		return fmt.Errorf("kernel file %s is an Epiphany binary (built by e-gcc), not a host shared object; %s", path, rebuild)
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("kernel file %s: unreadable ELF (%v); %s", path, err, rebuild)
	}
	if want, ok := hostELFMachine(); ok && ef.Machine != want {
		return fmt.Errorf("kernel file %s is built for %v, this host is %v; %s", path, ef.Machine, want, rebuild)
	}
	if ef.Type != elf.ET_DYN || hasInterpreter(ef) {
		return fmt.Errorf("kernel file %s is an executable, not a shared object (missing -shared -fPIC); %s", path, rebuild)
	}
	return nil
}

// rawMachine reads e_machine from the ELF header bytes, so that even a
// truncated foreign binary is recognised.
func rawMachine(head []byte) elf.Machine {
	if len(head) < 20 {
		return 0
	}
	if head[elf.EI_DATA] == byte(elf.ELFDATA2MSB) {
		return elf.Machine(uint16(head[18])<<8 | uint16(head[19]))
	}
	return elf.Machine(uint16(head[18]) | uint16(head[19])<<8)
}

// hasInterpreter tells a position-independent executable (ET_DYN too) from
// a shared object: only the executable names a program interpreter.
func hasInterpreter(ef *elf.File) bool {
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

func isSRecord(head []byte) bool {
	return len(head) >= 2 && head[0] == 'S' && head[1] >= '0' && head[1] <= '9'
}

// hostELFMachine is the ELF machine a kernel file must be built for: this
// process's architecture; ok is false where no check is made.
func hostELFMachine() (elf.Machine, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return elf.EM_X86_64, true
	case "arm64":
		return elf.EM_AARCH64, true
	case "386":
		return elf.EM_386, true
	case "arm":
		return elf.EM_ARM, true
	case "riscv64":
		return elf.EM_RISCV, true
	}
	return 0, false
}
