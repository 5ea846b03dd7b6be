package traces

import (
	"bytes"
	"errors"
	"io"
	"os"
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
