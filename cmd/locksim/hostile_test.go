package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileCase is one hostile invocation: its exit code, a piece of its
// one-line message (for refusals), and the files it may create or change
// (everything else in the fixture directory must stay as it was).
type hostileCase struct {
	args    string // split on spaces; D/ is the fixture directory; '' is an empty argument
	code    int
	msg     string
	outputs []string
}

func hostileCases() []hostileCase {
	usage := func(args, msg string) hostileCase { return hostileCase{args: args, code: exitUsage, msg: msg} }
	cases := []hostileCase{
		// Commands and help.
		usage("frobnicate", "unknown command"),
		usage("help frobnicate", "unknown command"),
		usage("help run explore", "at most one"),
		{args: "help run", code: 0},
		{args: "explore --help", code: 0},
		{args: "shrink -h", code: 0},
		{args: "--version", code: 0},
		usage("run --bogus", "unknown flag --bogus"),
		usage("run extra", "unexpected argument"),
		usage("list extra", "unexpected argument"),
		usage("list --json=maybe", `--json "maybe": not true or false`),
		// Numbers.
		usage("run --protocol setnx-del --seed -1", `--seed "-1": not a whole number, 0 or more`),
		usage("run --protocol setnx-del --seed 18446744073709551616", "out of range for a whole number"),
		usage("run --protocol setnx-del --seed 1e3", "not a whole number"),
		usage("run --protocol setnx-del --seed 0x", "not a whole number"),
		usage("explore --protocol setnx-del --runs 1.5", `--runs "1.5": not a whole number`),
		usage("matrix --seed x", `--seed "x": not a whole number, 0 or more`),
		usage("explore --protocol setnx-del --swarm=maybe", `--swarm "maybe": must be true or false`),
		usage("run --protocol setnx-del --clients 0", `--clients "0": must be an integer of at least 1`),
		usage("run --protocol setnx-del --clients 1001", "between 1 and 1000"),
		usage("run --protocol setnx-del --clients -5", "must be an integer of at least 1"),
		usage("run --protocol setnx-del --clients 99999999999999999999", "must be an integer"),
		usage("run --protocol setnx-del --intensity NaN", "must be in (0, 100]"),
		usage("run --protocol setnx-del --intensity Inf", "must be in (0, 100]"),
		usage("run --protocol setnx-del --intensity -1", "must be in (0, 100]"),
		usage("run --protocol setnx-del --intensity 0", "must be in (0, 100]"),
		usage("run --protocol setnx-del --intensity 101", "must be in (0, 100]"),
		usage("run --protocol setnx-del --intensity 1e309", "must be in (0, 100]"),
		usage("run --protocol setnx-del --max-events 0", "--max-events \"0\": must be between 1 and"),
		usage("run --protocol setnx-del --max-events -1", "must be between 1 and"),
		usage("run --protocol setnx-del --max-events 2000000000", "must be between 1 and"),
		usage("run --max-events 10", "needs --protocol"),
		{args: "run --protocol setnx-del --faults gc-pause --max-events 50", code: exitUnknown},
		usage("explore --protocol setnx-del --runs 0", "--runs must be at least 1"),
		usage("explore --protocol setnx-del --runs -1", "--runs must be at least 1"),
		usage("explore --protocol setnx-del --runs 10000000000", "--runs must be at most"),
		usage("explore --protocol setnx-del --workers -1", "--workers must not be negative"),
		usage("explore --protocol setnx-del --clients 0", "must be an integer of at least 1"),
		usage("explore --protocol setnx-del --clients 5000", "between 1 and 1000"),
		usage("explore --protocol setnx-del --intensity NaN", "must be in (0, 100]"),
		usage("explore --protocol setnx-del --seed-start 18446744073709551615 --runs 2", "seeds would wrap"),
		usage("explore --protocol setnx-del --seed-start 18446744073709551610 --runs 4 --shard 1/2", "seeds would wrap"),
		usage("explore --protocol setnx-del --shard 0/1", "--shard must be K/N"),
		usage("explore --protocol setnx-del --shard 1/0", "--shard must be K/N"),
		usage("explore --protocol setnx-del --shard 3/2", "--shard must be K/N"),
		usage("explore --protocol setnx-del --shard a/b", "--shard must be K/N"),
		usage("explore --protocol setnx-del --shard 1/2/3", "--shard must be K/N"),
		usage("explore --protocol setnx-del --max-events 0", "--max-events \"0\": must be between 1 and"),
		{args: "explore --protocol setnx-lua-del --runs 2 --workers 1000000", code: exitOK},
		{args: "matrix --runs 2 --protocols setnx-lua-del --faults none --workers 1000000", code: exitOK},
		usage("matrix --runs 0", "--runs must be between"),
		usage("matrix --runs 1000000", "--runs must be between"),
		usage("matrix --clients 0", "--clients must be at least 1"),
		usage("matrix --workers -2", "--workers must not be negative"),
		usage("matrix --protocols setnx-del,setnx-del", "names \"setnx-del\" twice"),
		usage("matrix --faults gc-pause,,none", "--faults has an empty item"),
		usage("matrix --workload stock,stock", "names \"stock\" twice"),
		usage("verify --faults gc-pause,gc-pause", "names \"gc-pause\" twice"),
		usage("verify --offsets 0,0", "names \"0\" twice"),
		usage("shrink D/bad.json --budget 0", "--budget must be between"),
		usage("shrink D/bad.json --budget -1", "--budget must be between"),
		usage("replay D/bad.json --max-input-mb 0", "--max-input-mb must be between"),
		usage("view D/bad.json -o D/out/x.html --max-input-mb 99999999", "--max-input-mb must be between"),
		// Names and lists.
		usage("run --protocol ''", "--protocol \"\": must not be empty"),
		usage("run --protocol '_'", "must not be empty"),
		usage("run --protocol nope", "nope"),
		usage("run --protocol setnx-del --workload ''", "--workload \"\": must not be empty"),
		usage("run --protocol setnx-del --workload nope", "nope"),
		usage("run --protocol setnx-del --faults ''", "--faults \"\": must not be empty"),
		usage("run --protocol setnx-del --faults meteor", "meteor"),
		usage("run --protocol setnx-del --faults gc-pause,gc-pause", "names \"gc-pause\" twice"),
		usage("run --protocol setnx-del --faults gc-pause,,partition", "empty item"),
		usage("run --protocol setnx-del --faults none,gc-pause", "cannot be combined"),
		usage("run --protocol setnx-del --topology ''", "--topology \"\": must not be empty"),
		usage("run --protocol setnx-del --topology mesh", "mesh"),
		usage("run --scenario ''", "--scenario \"\": must not be empty"),
		usage("run --scenario nope", "nope"),
		usage("run --scenario pause-no-fencing --swarm", "drawn already"),
		usage("run --seed 3", "needs --protocol"),
		usage("explore", "--protocol or --protocol-file is required"),
		usage("explore --protocol ''", "--protocol \"\": must not be empty"),
		usage("explore --protocol nope", "nope"),
		usage("explore --protocol setnx-del --faults gc-pause,gc-pause", "twice"),
		usage("explore --protocol setnx-del --faults meteor", "meteor"),
		usage("explore --protocol setnx-del --out ''", "--out \"\": must not be empty"),
		usage("explore --protocol setnx-del extra", "unexpected argument"),
		usage("matrix --protocols nope", "nope"),
		usage("replay", "exactly one"),
		usage("replay D/bad.json D/ok.json", "exactly one"),
		usage("view D/bad.json", "-o OUT.html is required"),
		usage("view D/bad.json -o ''", "-o \"\": must not be empty"),
		usage("shrink", "exactly one"),
		usage("merge", "one or more"),
		// Damaged traces, through every reader.
		usage("replay D/missing.json", "no such file"),
		usage("replay D/edit-event.json", "trace check failed"),
		usage("replay D/del-event.json", "trace check failed"),
		usage("replay D/dup-event.json", "trace check failed"),
		usage("view D/dup-event.json -o D/out/x.html", "trace check failed"),
		usage("shrink D/dup-event.json -o D/out/x.json", "trace check failed"),
		usage("replay D/padded.json", "data after the trace"),
		usage("replay D/extra-field.json", "unknown field \"extra\""),
		usage("replay D/dup-key.json", "given twice"),
		usage("replay D/report-lie.json", "report-lie.json: report check failed"),
		usage("view D/report-lie.json -o D/out/x.html", "report-lie.json: report check failed"),
		usage("shrink D/report-lie.json -o D/out/x.json", "report-lie.json: report check failed"),
		usage("replay D/seed-edit.json", "hash mismatch"),
		usage("shrink D/seed-edit.json -o D/out/x.json", "hash mismatch"),
		usage("replay D/hash-edit.json", "trace check failed"),
		usage("replay D/no-hash.json", "no trace_sha256"),
		usage("replay D/empty.json", "not a locksim trace"),
		usage("replay D/garbage.json", "not a locksim trace"),
		usage("replay D/null.json", "not a locksim trace"),
		usage("replay D/array.json", "not a locksim trace"),
		usage("replay D/string.json", "not a locksim trace"),
		usage("replay D/format99.json", "newer than this locksim"),
		usage("replay D/format0.json", "not valid"),
		usage("replay D/format-str.json", "not a locksim trace"),
		usage("replay D/no-trace.json", "no trace section"),
		usage("replay D/lease-huge.json", "hash mismatch"),
		usage("replay D/dur-huge.json", "hash mismatch"),
		usage("replay D/at-neg.json", "hash mismatch"),
		usage("replay D/latency.json", "latency"),
		usage("replay D/attempts.json", "attempts"),
		usage("replay D/intensity.json", "not a locksim trace"),
		usage("replay D/clients.json", "hash mismatch"),
		usage("replay D/big.json --max-input-mb 1", "larger than the 1 MB limit"),
		usage("shrink D/ok.json -o D/out/x.json", "ok.json: the trace has no violation to shrink"),
		{args: "replay D/big.json --max-input-mb 3", code: exitViolation},
		{args: "replay D/link.json", code: exitViolation},
		usage("replay D/dangling.json", "no such file"),
		// Special files as input.
		usage("replay D/empty-dir", "is a directory"),
		usage("replay /dev/zero", "not a locksim trace"),
		usage("replay /dev/zero --max-input-mb 1", "not a locksim trace"),
		usage("replay /dev/null", "not a locksim trace"),
		usage("view D/fifo -o D/out/x.html", "not a locksim trace"),
		usage("shrink D/fifo -o D/out/x.json", "not a locksim trace"),
		usage("merge D/fifo", "not an explore summary"),
		usage("merge /dev/zero", "not an explore summary"),
		// Outputs: never an input, never twice, never replacing a special file.
		usage("view D/bad.json -o D/bad.json", "also an input"),
		usage("view D/link.json -o D/bad.json", "also an input"),
		usage("shrink D/bad.json -o D/bad.json", "also an input"),
		usage("replay D/bad.json --trace D/bad.json", "also an input"),
		usage("run --trace D/out/t.json --html D/out/t.json", "same file"),
		usage("run --trace D/link.html --html D/keep.html", "same file"),
		usage("view D/garbage.json -o D/keep.html", "not a locksim trace"),
		usage("run --trace D/empty-dir", "is a directory"),
		usage("run --trace /dev/full", "no space left"),
		usage("view D/bad.json -o D/fifo", "FIFO with no reader"),
		{args: "run --trace D/nodir/sub/t.json", code: exitViolation, outputs: []string{"nodir/sub/t.json", "nodir/sub", "nodir"}},
		usage("run --protocol setnx-del --trace D/garbage.json/t.json", "not a directory"),
		usage("explore --protocol setnx-del --out D/garbage.json/sub", "--out"),
		{args: "view D/bad.json -o /dev/null", code: exitOK},
		{args: "run --trace /dev/null --html /dev/null", code: exitViolation},
		{args: "view D/bad.json -o D/link.html", code: exitOK, outputs: []string{"keep.html"}},
		{args: "run --trace D/out/t.json --html D/out/t.html", code: exitViolation, outputs: []string{"out/t.json", "out/t.html"}},
		// Merge.
		usage("merge D/missing", "no such file"),
		usage("merge D/garbage.json", "not an explore summary"),
		usage("merge D/x.json", "not a valid explore summary"),
		usage("merge D/neg.json", "not a valid explore summary"),
		usage("merge D/counts.json", "not a valid explore summary"),
		usage("merge D/unknown-sum.json", "not an explore summary"),
		usage("merge D/damage-sum.json", "not a valid explore summary: 9999"),
		usage("merge D/plot-sum.json", "not a valid explore summary: plot pause_over_lease"),
		usage("merge D/sa D/sa", "given twice"),
		usage("merge D/sa D/sa/summary.json", "given twice"),
		usage("merge D/sa D/dup", "overlapping seeds"),
		usage("merge D/sa D/sc", "not shards of one exploration: clients differs"),
		usage("merge D/sa D/sd", "not shards of one exploration"),
		usage("merge D/sa --max-input-mb 0", "--max-input-mb must be between"),
		{args: "merge D/sa D/sb", code: exitViolation},
		// The HTML report: a regular file, never an input, never in the
		// place of a file explore writes; refused before any run.
		usage("explore --protocol setnx-lua-del --runs 2 --html D/empty-dir", "is a directory"),
		usage("explore --protocol setnx-lua-del --runs 2 --html D/fifo", "not a regular file"),
		usage("explore --protocol setnx-lua-del --runs 2 --html /dev/null", "not a regular file"),
		{args: "explore --protocol setnx-lua-del --runs 2 --html D/nodir/r.html", code: exitOK, outputs: []string{"nodir/r.html", "nodir"}},
		usage("explore --protocol setnx-lua-del --runs 2 --html D/garbage.json/r.html", "garbage.json is not a directory"),
		usage("explore --protocol setnx-lua-del --runs 2 --html ''", "--html \"\": must not be empty"),
		usage("explore --protocol setnx-lua-del --runs 2 --out D/new --html D/new/summary.json", "a file explore writes"),
		usage("explore --protocol setnx-del --runs 2 --out D/sa --force --html D/sa/summary.json", "a file explore writes"),
		usage("explore --protocol setnx-del --runs 2 --out D/sa --force --html D/sa/mutual-exclusion-premature-expiry.html", "a file explore writes"),
		usage("merge D/sa D/sb --html D/sa/summary.json", "also an input"),
		usage("merge D/sa D/sb --html D/sb/mutual-exclusion-premature-expiry.json", "a file explore writes"),
		usage("merge D/sa D/sb --html D/fifo", "not a regular file"),
		usage("merge D/sa D/sb --html /dev/null", "not a regular file"),
		usage("merge D/sa D/sb --html D/empty-dir", "is a directory"),
		{args: "explore --protocol setnx-lua-del --runs 2 --html D/out/e.html", code: exitOK, outputs: []string{"out/e.html"}},
		{args: "merge D/sa D/sb --html D/out/m.html --json", code: exitViolation, outputs: []string{"out/m.html"}},
	}
	return cases
}

func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, dir := hostileSetup(t)
	cases := hostileCases()
	if len(cases) < 100 {
		t.Fatalf("%d hostile cases, want at least 100", len(cases))
	}
	for _, c := range cases {
		args := splitArgs(c.args, dir)
		before := snapshot(t, dir)
		code, stdout, stderr := runBin(t, bin, args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\nstdout %q\nstderr %q", c.args, code, c.code, stdout, stderr)
			continue
		}
		if c.code == exitUsage {
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "locksim") || !strings.Contains(lines[0], c.msg) {
				t.Errorf("%s: stderr %q, want one line with %q", c.args, stderr, c.msg)
			}
		} else if strings.Contains(stderr, "\n") && strings.Count(stderr, "\n") > 2 {
			t.Errorf("%s: stderr %q", c.args, stderr)
		}
		after := snapshot(t, dir)
		for _, o := range c.outputs {
			delete(before, filepath.Join(dir, o))
			delete(after, filepath.Join(dir, o))
		}
		for p, v := range before {
			if after[p] != v {
				t.Errorf("%s: changed %s (%s -> %s)", c.args, p, v, after[p])
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				t.Errorf("%s: left %s behind", c.args, p)
			}
		}
		restore(t, dir, c.outputs)
	}
}

// restore puts back the outputs a case was allowed to write.
func restore(t *testing.T, dir string, outputs []string) {
	for _, o := range outputs {
		p := filepath.Join(dir, o)
		if o == "keep.html" {
			os.WriteFile(p, []byte("earlier output\n"), 0o644)
			continue
		}
		os.Remove(p)
	}
}

// splitArgs splits a case's command line; ” is an empty argument and
// '_' one space.
func splitArgs(s, dir string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		f = strings.ReplaceAll(f, "D/", dir+"/")
		switch {
		case f == "''":
			out = append(out, "")
		case f == "'_'":
			out = append(out, " ")
		default:
			out = append(out, f)
		}
	}
	return out
}
