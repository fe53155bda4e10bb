package gotests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docs/design.md states the design as it is; its history is git's and its
// measurements are bench/RESULTS.md's. These checks keep it from growing
// back into a log: a length limit, no dates, no commit ids.

const designMaxLines = 450

var (
	logDate = regexp.MustCompile(`\b(?:19|20)\d\d-\d\d-\d\d\b`)
	// seven or more hex digits with a digit and a letter among them: a
	// commit id (words spelled in a-f alone, such as "defaced", and plain
	// numbers are not; 0x addresses are joined to their "0x")
	hexRun = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	digit  = regexp.MustCompile(`[0-9]`)
	letter = regexp.MustCompile(`[a-f]`)
)

// logTraces returns the lines of text (numbered from 1) with what makes them
// read as a log: a date or a commit id.
func logTraces(text string) []string {
	var found []string
	for i, line := range strings.Split(text, "\n") {
		if m := logDate.FindString(line); m != "" {
			found = append(found, lineRef(i, "date "+m))
		}
		for _, m := range hexRun.FindAllString(line, -1) {
			if digit.MatchString(m) && letter.MatchString(m) {
				found = append(found, lineRef(i, "commit id "+m))
			}
		}
	}
	return found
}

func lineRef(i int, what string) string {
	return "line " + strconv.Itoa(i+1) + ": " + what
}

func TestDesignDocIsNotALog(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(text), "\n")
	if lines > designMaxLines {
		t.Errorf("docs/design.md has %d lines, at most %d: state decisions once, move numbers to bench/RESULTS.md",
			lines, designMaxLines)
	}
	for _, f := range logTraces(string(text)) {
		t.Errorf("docs/design.md %s: history belongs in git, measurements in bench/RESULTS.md", f)
	}
}

// TestDesignDocCheckCanFail: the detector finds what it is for and leaves
// ordinary text alone.
func TestDesignDocCheckCanFail(t *testing.T) {
	for _, bad := range []string{"two runs on 2026-11-27", "alternating with 010570a", "base 70d43ef:"} {
		if len(logTraces(bad)) == 0 {
			t.Errorf("%q not found", bad)
		}
	}
	for _, good := range []string{"a defaced word", "(char *)0x6000 and 0x7fffffff", "1234567 bytes", "sizes 2-18x"} {
		if f := logTraces(good); len(f) != 0 {
			t.Errorf("%q flagged: %v", good, f)
		}
	}
	if got := logTraces("a\nb 2026-11-27"); len(got) != 1 || !strings.HasPrefix(got[0], "line 2:") {
		t.Errorf("line numbers: %v", got)
	}
}
