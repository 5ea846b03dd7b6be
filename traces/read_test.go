package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
)

func emptyScenario() protocols.Scenario {
	sc, _ := protocols.Scenario{Protocol: "setnx-del"}.Normalize()
	return sc
}

// TestEmptyHistoryHashIsStable: a trace with no events and no operations
// (nil slices, as a run that did nothing builds them) is written with the
// hash it reads back with.
func TestEmptyHistoryHashIsStable(t *testing.T) {
	tr := &trace.Trace{}
	f := &File{Format: FormatVersion, Scenario: emptyScenario(), Trace: tr}
	f.TraceSHA256 = Hash(f)
	b, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("locksim's own file with 0 operations: %v", err)
	}
	if got := Hash(back); got != f.TraceSHA256 {
		t.Fatalf("hash %s read back as %s", f.TraceSHA256, got)
	}
	nonNil := &trace.Trace{Events: []trace.Event{}, Ops: []trace.Op{}}
	if nonNil.Hash() != tr.Hash() {
		t.Fatal("empty and nil histories hash differently")
	}
}

// TestDecodeStopsAtTheCap: an input past its cap fails with ErrTooLarge
// after reading at most the cap (and one byte), however long it is.
func TestDecodeStopsAtTheCap(t *testing.T) {
	src := &counting{r: strings.NewReader(`{"format": 1, "scenario": ` + strings.Repeat(" ", 1<<20) + `}`)}
	_, err := Decode(Capped(src, 1<<10))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if src.n > 1<<10+1 {
		t.Fatalf("read %d bytes past a cap of %d", src.n, 1<<10)
	}
}

type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestDoctoredScenarioFailsTheHash: a trace whose scenario was edited
// (its events left alone) is refused by the reader, before the scenario
// is normalized or run; the same edit with the hash recomputed reads.
func TestDoctoredScenarioFailsTheHash(t *testing.T) {
	b, err := os.ReadFile(corpusPath("pause-no-fencing"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(b); err != nil {
		t.Fatalf("the committed trace: %v", err)
	}
	doctored := bytes.Replace(b, []byte(`"clients":2,"threads":1,"ops":1,`), []byte(`"clients":1000,"threads":64,"ops":100000,`), 1)
	if bytes.Equal(doctored, b) {
		t.Fatal("the corpus trace no longer has the scenario this test edits")
	}
	_, err = Parse(doctored)
	if err == nil || !strings.Contains(err.Error(), "hash mismatch: the file's scenario and events") {
		t.Fatalf("doctored scenario: %v", err)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	f.Scenario.Clients, f.Scenario.Threads, f.Scenario.Ops = 1000, 64, 100000
	f.TraceSHA256 = Hash(f)
	forged, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(forged); err != nil {
		t.Fatalf("a scenario with its hash recomputed reads (replay's budget refuses it): %v", err)
	}
}

// tenMillionLines writes a trace file of ten million lines (one empty
// event each, 40 MB) in dir.
func tenMillionLines(t testing.TB, dir string) (string, int64) {
	t.Helper()
	path := filepath.Join(dir, "ten-million-lines.json")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(out, 1<<20)
	w.WriteString(`{"format": 2, "trace": {"events": [` + "\n")
	for range 10_000_000 - 2 {
		w.WriteString("{},\n")
	}
	w.WriteString("{}]}}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	st, _ := os.Stat(path)
	return path, st.Size()
}

// TestTenMillionLineTraceStopsAtTheLineCap: a 10-million-line file under
// the size cap is refused at the line cap, with one error naming it,
// without being read to its end: by ReadLimit's counting pass, and by
// the stream reader for input that cannot be read twice (which decodes
// what it reads, so it is tried at a lower cap here).
func TestTenMillionLineTraceStopsAtTheLineCap(t *testing.T) {
	path, size := tenMillionLines(t, t.TempDir())
	if size > DefaultMaxInput {
		t.Fatalf("the file (%d bytes) is over the size cap: it would not test the line cap", size)
	}
	maxLines := int64(DefaultMaxInput / BytesPerLine)
	_, err := Read(path)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d lines", maxLines)) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Read: %v", err)
	}
	for name, read := range map[string]func(r io.Reader) error{
		"counting pass": func(r io.Reader) error { _, err := countLines(r, maxLines); return err },
		"stream":        func(r io.Reader) error { _, err := Decode(CappedLines(r, DefaultMaxInput, 10_000)); return err },
	} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		src := &counting{r: f}
		err = read(src)
		f.Close()
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: %v", name, err)
		}
		if int64(src.n) >= size {
			t.Fatalf("%s: read all %d bytes of the file", name, src.n)
		}
	}
}

// A regular file over the size cap is refused from its size, unread.
func TestOversizedFileIsRefusedUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, bytes.Repeat([]byte(" "), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadLimit(path, 1<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "is 2 MB, larger than the 1 MB limit") {
		t.Fatalf("%v", err)
	}
}
