package report

import (
	"os"
	"path/filepath"
	"testing"
)

// The committed cross-paper page is what the committed summaries generate:
// `make reproduce` of any paper rewrites it, and nobody edits it by hand.
func TestCommittedIndex(t *testing.T) {
	dir := filepath.Join("..", "..", "reports")
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatalf("reports/README.md: %v (make reproduce writes it)", err)
	}
	want, err := Index(dir)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("reports/README.md is not what reports/*/summary.json generate; run `make reproduce PAPER=<any>` (or report.WriteIndex) and commit it")
	}
}
