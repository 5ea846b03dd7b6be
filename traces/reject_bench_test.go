package traces

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// The two refusals a hostile trace meets, timed (issue 31: each under a
// second): a doctored scenario (1,000 clients x 64 threads x 100,000 ops)
// fails its hash before anything runs; a ten-million-line file stops at
// the line cap without being read to its end.

func BenchmarkRejectDoctoredScenario(b *testing.B) {
	raw, err := os.ReadFile(corpusPath("pause-no-fencing"))
	if err != nil {
		b.Fatal(err)
	}
	doctored := bytes.Replace(raw, []byte(`"clients":2,"threads":1,"ops":1,`), []byte(`"clients":1000,"threads":64,"ops":100000,`), 1)
	if bytes.Equal(doctored, raw) {
		b.Fatal("the corpus trace no longer has the scenario this benchmark edits")
	}
	for b.Loop() {
		if _, err := Parse(doctored); err == nil {
			b.Fatal("the doctored scenario was read")
		}
	}
}

func BenchmarkRejectTenMillionLines(b *testing.B) {
	path, _ := tenMillionLines(b, b.TempDir())
	for b.Loop() {
		if _, err := Read(path); !errors.Is(err, ErrTooLarge) {
			b.Fatalf("Read: %v", err)
		}
	}
}
