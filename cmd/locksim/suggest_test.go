package main

import (
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	valid := []string{"redisson", "redisson-latest", "redlock", "setnx-del", "setnx-lua-del"}
	for _, c := range []struct{ name, want string }{
		{"redison", "redisson"},             // a letter missing
		{"REDLOCK", "redlock"},              // case
		{"rdelock", "redlock"},              // neighbours swapped
		{"setnx-dle", "setnx-del"},          // swapped at the end
		{"redisson-lat", "redisson-latest"}, // the only name so begun
		{"setnx", ""},                       // begins two names
		{"zookeeper", ""},                   // nothing close
		{"", ""},
	} {
		if got := nearest(c.name, valid); got != c.want {
			t.Errorf("nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestUnknownNamesSuggest: a misspelt name of each vocabulary exits 2 with
// one line that names the closest valid name.
func TestUnknownNamesSuggest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--protocol", "redison"}, `(did you mean "redisson"?)`},
		{[]string{"explore", "--protocol", "redison", "--runs", "1"}, `(did you mean "redisson"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--faults", "gc-pase"}, `(did you mean "gc-pause"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--fault", "gc-pase:c1@0+10"}, `(did you mean "gc-pause"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--workload", "stok"}, `(did you mean "stock"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--topology", "singel"}, `(did you mean "single"?)`},
		{[]string{"run", "--scenario", "pause-no-fenc"}, `(did you mean "pause-no-fencing"?)`},
		{[]string{"exlpore"}, `(did you mean "explore"?)`},
		{[]string{"help", "exlpore"}, `(did you mean "explore"?)`},
		{[]string{"verify", "--protocols", "redison"}, `(did you mean "redisson"?)`},
		{[]string{"verify", "--faults", "gc-pase"}, `(did you mean "gc-pause"?)`},
		// Flags, and the names flag values take.
		{[]string{"run", "--protocl", "redisson"}, `unknown flag --protocl (did you mean --protocol?)`},
		{[]string{"explore", "--protocol", "setnx-del", "--outt", "d"}, `unknown flag --outt (did you mean --out?)`},
		{[]string{"list", "--jsn"}, `unknown flag --jsn (did you mean --json?)`},
		{[]string{"run", "--protocol", "setnx-del", "--fail-on", "exclusoin"}, `(did you mean "exclusion"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--arrival", "opne"}, `(did you mean "open"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--persistence", "everysc"}, `(did you mean "everysec"?)`},
		// A fault's anchor: a misspelt operation, phase or result would
		// leave the fault unapplied without a word.
		{[]string{"run", "--protocol", "setnx-del", "--fault", "gc-pause:c1@0+10~c1/acquir/return/ok#1+0"}, `unknown operation "acquir" (did you mean "acquire"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--fault", "gc-pause:c1@0+10~c1/acquire/retrun/ok#1+0"}, `(did you mean "return"?)`},
		{[]string{"run", "--protocol", "setnx-del", "--fault", "gc-pause:c1@0+10~c1/acquire/return/okk#1+0"}, `unknown result "okk" (did you mean "ok"?)`},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, code, stderr, c.want)
		}
	}
	// A suggestion is a name the command takes: verify has no fault
	// kind "none", so "nope" gets no guess.
	if _, _, stderr := runCLI("verify", "--faults", "nope"); strings.Contains(stderr, "did you mean") {
		t.Errorf("verify --faults nope suggests a name verify refuses: %q", stderr)
	}
	if _, _, stderr := runCLI("run", "--protocol", "zookeeper"); strings.Contains(stderr, "did you mean") {
		t.Errorf("a name close to nothing got a guess: %q", stderr)
	}
	// The property's own name, as reports print it, is a --fail-on word.
	if code, _, stderr := runCLI("run", "--fail-on", "mutual-exclusion"); code != exitViolation {
		t.Errorf("--fail-on mutual-exclusion: exit %d, %q", code, stderr)
	}
}
