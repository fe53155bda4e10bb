package gotests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The messages the documentation quotes as printed by the library are in
// its source. The convention (docs/errors.md says it at its top): in
// README.md and docs/errors.md, a quote in backticks that starts with
// "ebsp: " or "$PP: ", and every line of a fenced code block of
// docs/errors.md that starts so, is a line the library prints. Its
// placeholders (N, PP, S, ..., numbers, "...", <what>) are the parts that
// vary; the library composes a message of parts (the call, what went
// wrong, the superstep), so the fixed text is cut at placeholders and at
// ": ", "; ", quotes and parentheses, and each phrase of at least
// minFragment characters must appear in the library's Go or C source
// (adjacent C literals and Go concatenations joined).

const minFragment = 10

var (
	quoted      = regexp.MustCompile("`((?:ebsp|\\$PP): [^`]+)`")
	fence       = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	placeholder = regexp.MustCompile(`\.\.\.|<[^>]*>|0x[A-Z.]+|0x[0-9a-f]+|\b[0-9][0-9,-]*\b|` +
		`\b(?:N|PP|S|R|C|M|P|Q|QQ|TT|K|B|O|F|T|X|CC|A|I|L|HOST|NAME|ADDR|STATE|CALL|RxC)\b`)
	// the library composes a message of parts: a call's name, what went
	// wrong, the superstep; a fragment is a phrase between such seams
	seams = regexp.MustCompile(`"|: |; |\(|\)`)
	space = regexp.MustCompile(`\s*\n\s*`)
	// a literal's end and the next one's start: "..." "..." (C) or "..." + "..." (Go)
	joins = regexp.MustCompile(`"\s*\+?\s*\n?\s*"`)
)

var (
	literal = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)
	verb    = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z]`)
	between = regexp.MustCompile(`^\s*\+?\s*$`)
)

// librarySource is the text of the string literals of the library's Go
// and C files (tests excepted): adjacent literals and concatenations
// joined, escapes undone, a format verb (%d, %s, ...) and the end of a
// literal marked with a NUL, which no phrase of a message crosses.
func librarySource(t *testing.T, root string) string {
	var b strings.Builder
	for _, dir := range []string{"capi", "engine", "env", "emesh", "faces", "sched", "world"} {
		err := filepath.Walk(filepath.Join(root, dir), func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			name := info.Name()
			if info.IsDir() || strings.HasSuffix(name, "_test.go") ||
				!(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".c") || strings.HasSuffix(name, ".h")) {
				return nil
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			last := -1
			for _, m := range literal.FindAllIndex(text, -1) {
				if last < 0 || !between.Match(text[last:m[0]]) {
					b.WriteByte(0)
				}
				lit := string(text[m[0]+1 : m[1]-1])
				lit = strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\\`, `\`, "`", "").Replace(lit)
				lit = strings.ReplaceAll(verb.ReplaceAllString(strings.ReplaceAll(lit, "%%", "\x01"), "\x00"), "\x01", "%")
				b.WriteString(lit)
				last = m[1]
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// printed reports whether the library's literals (librarySource) print
// phrase: as it is, or in at most three consecutive pieces of at least
// minPiece characters, cut where words meet (a message composed of a
// format and its arguments: "%s crashed", "the host's end callback").
func printed(src, phrase string) bool {
	const minPiece = 3
	for pieces := 0; phrase != ""; pieces++ {
		if pieces == 3 {
			return false
		}
		if strings.Contains(src, phrase) {
			return true
		}
		cut := -1
		for i := len(phrase) - 1; i >= minPiece; i-- {
			if phrase[i] == ' ' && strings.Contains(src, phrase[:i]) {
				cut = i
				break
			}
		}
		if cut < 0 {
			return false
		}
		phrase = strings.TrimLeft(phrase[cut:], " ")
	}
	return true
}

// quotedMessages are the messages file quotes as the library's.
func quotedMessages(text string, fences bool) []string {
	var msgs []string
	for _, m := range quoted.FindAllStringSubmatch(text, -1) {
		msgs = append(msgs, m[1])
	}
	if fences {
		for _, m := range fence.FindAllStringSubmatch(text, -1) {
			for _, line := range strings.Split(m[1], "\n") {
				if strings.HasPrefix(line, "ebsp: ") || strings.HasPrefix(line, "$PP: ") {
					msgs = append(msgs, line)
				}
			}
		}
	}
	return msgs
}

// fragments are the fixed parts of a quoted message worth looking for.
func fragments(msg string) []string {
	msg = space.ReplaceAllString(msg, " ") // a quote may run over lines of the Markdown
	var out []string
	for _, f := range placeholder.Split(msg, -1) {
		for _, part := range seams.Split(f, -1) {
			if part = strings.Trim(part, " ,.:="); len(part) >= minFragment {
				out = append(out, part)
			}
		}
	}
	return out
}

func TestDocsQuoteTheLibrary(t *testing.T) {
	root := filepath.Join("..")
	src := librarySource(t, root)
	checked := 0
	for _, doc := range []string{"README.md", filepath.Join("docs", "errors.md")} {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range quotedMessages(string(text), strings.HasSuffix(doc, "errors.md")) {
			for _, f := range fragments(msg) {
				checked++
				if !printed(src, f) {
					t.Errorf("%s quotes %q, but the library's source has no %q", doc, msg, f)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d parts of quoted messages checked: the convention is not followed, or the test is broken", checked)
	}
}

// The test above fails on a message the library does not print: the
// deadlock across ranks that the README and docs/errors.md once quoted.
func TestDocsQuoteCheckCanFail(t *testing.T) {
	src := librarySource(t, "..")
	for _, msg := range []string{"ebsp: ERROR: deadlock: the cores of the ranks wait in different barriers (they took different paths through the program):"} {
		missing := false
		for _, f := range fragments(msg) {
			missing = missing || !printed(src, f)
		}
		if !missing {
			t.Errorf("%q passes", msg)
		}
	}
	for _, msg := range []string{"ebsp: core PP crashed in superstep N: SIGSEGV (invalid memory access) at address 0x...",
		"ebsp: the host's end callback crashed: SIGSEGV (invalid memory access) at address 0x..."} {
		for _, f := range fragments(msg) {
			if !printed(src, f) {
				t.Errorf("%q: %q is not found", msg, f)
			}
		}
	}
	if got := fragments("ebsp: core PP crashed in superstep N: SIGSEGV (invalid memory access) at address 0x..."); len(got) != 3 ||
		got[0] != "crashed in superstep" || got[1] != "invalid memory access" || got[2] != "at address" {
		t.Errorf("fragments: %q", got)
	}
}
