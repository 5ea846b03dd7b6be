package view

import (
	"bytes"
	"testing"

	"github.com/locksim/locksim/traces"
)

// TestOutcomeViewIsDeterministic renders every reference scenario's page
// several times: the page, porcupine's linearization tab included, is a
// function of the run alone.
func TestOutcomeViewIsDeterministic(t *testing.T) {
	for _, ref := range traces.References() {
		o, err := traces.Execute(ref.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		var first []byte
		for i := 0; i < 8; i++ {
			var buf bytes.Buffer
			if err := WriteOutcomeView(&buf, o); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = buf.Bytes()
			} else if !bytes.Equal(first, buf.Bytes()) {
				t.Errorf("%s: the page differs between two renderings of one run", ref.Name)
				break
			}
		}
	}
}
