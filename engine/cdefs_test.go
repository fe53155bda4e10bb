package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed header is what the Go definitions generate.
func TestCDefinitionsCurrent(t *testing.T) {
	var want bytes.Buffer
	if err := WriteCDefinitions(&want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", CDefsPath))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s is stale: run go generate ./engine and commit it", CDefsPath)
	}
}
