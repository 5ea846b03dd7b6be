package traces

import (
	"bytes"
	"errors"
	"io"
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
	f := &File{Format: FormatVersion, Scenario: emptyScenario(), Trace: tr, TraceSHA256: tr.Hash()}
	b, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("locksim's own file with 0 operations: %v", err)
	}
	if got := back.Trace.Hash(); got != f.TraceSHA256 {
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
