package traces

import (
	"bytes"
	"os"
	"testing"

	"github.com/locksim/locksim/sim/trace"
)

// FuzzDecode feeds the trace reader arbitrary bytes: it must return a
// file or an error, never panic or loop; a file it accepts matches its
// hash and reads back the same after encoding. Seeds: the committed corpus
// (valid traces), testdata/fuzz/FuzzDecode (damaged ones).
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"corpus/orphan-acquire.json", "corpus/pause-no-fencing.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	ef := &File{Format: FormatVersion, Scenario: emptyScenario(), Trace: &trace.Trace{}}
	ef.TraceSHA256 = Hash(ef)
	empty, _ := Encode(ef)
	f.Add(empty)
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Decode(bytes.NewReader(b))
		if err != nil {
			if file != nil {
				t.Fatal("a file and an error")
			}
			return
		}
		if err := CheckHash(file); err != nil {
			t.Fatalf("accepted a file that fails its hash: %v", err)
		}
		again, err := Encode(file)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("re-encoded file does not read back: %v", err)
		}
		if back.TraceSHA256 != file.TraceSHA256 || back.Trace.Hash() != file.Trace.Hash() {
			t.Fatal("re-encoded file changed its trace")
		}
	})
}
