package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/explore"
)

// TestMergeReportAddsShardBuckets: merge --html reports the shards'
// buckets summed, and links each cause to the timeline its shard's
// explore --html rendered.
func TestMergeReportAddsShardBuckets(t *testing.T) {
	dir := t.TempDir()
	var shards []*explore.Summary
	for _, k := range []string{"1", "2"} {
		out := filepath.Join(dir, "s"+k)
		code, stdout, stderr := runCLI("explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "30",
			"--shard", k+"/2", "--out", out, "--html", filepath.Join(out, "report.html"))
		if code != exitViolation {
			t.Fatalf("explore shard %s: exit %d\n%s%s", k, code, stdout, stderr)
		}
		s, err := explore.ReadSummary(filepath.Join(out, explore.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	page := filepath.Join(dir, "merged.html")
	code, stdout, stderr := runCLI("merge", filepath.Join(dir, "s1"), filepath.Join(dir, "s2"), "--html", page, "--json")
	if code != exitViolation || !strings.Contains(stderr, "wrote "+page) {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	var m explore.Summary
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("merge --json: %v", err)
	}
	for i, p := range m.Plots {
		for j, b := range p.Buckets {
			a, c := shards[0].Plots[i].Buckets[j], shards[1].Plots[i].Buckets[j]
			if b.Runs != a.Runs+c.Runs || b.Violating != a.Violating+c.Violating {
				t.Errorf("%s %s: merged %d/%d, shards %d/%d and %d/%d", p.Param, b.Label, b.Violating, b.Runs,
					a.Violating, a.Runs, c.Violating, c.Runs)
			}
		}
	}
	if m.Damage.Sum.Total() != shards[0].Damage.Sum.Total()+shards[1].Damage.Sum.Total() {
		t.Errorf("merged damage %d", m.Damage.Sum.Total())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	if !strings.Contains(html, "2 shards merged") {
		t.Error("the page does not say it merges 2 shards")
	}
	for _, c := range m.Causes {
		rel, _ := filepath.Rel(dir, explore.TimelineOf(c.Trace))
		if !strings.Contains(html, `href="`+filepath.ToSlash(rel)+`"`) {
			t.Errorf("cause %s/%s: no link to %s", c.Property, c.Cause, rel)
		}
	}
}
