package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
)

func runReference(t *testing.T, name string) *traces.Outcome {
	t.Helper()
	ref, err := traces.LookupReference(name)
	if err != nil {
		t.Fatal(err)
	}
	o, err := traces.Execute(ref.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func laneNames(vm *viewModel) []string {
	var out []string
	for _, l := range vm.Lanes {
		out = append(out, l.Kind+":"+l.Name)
	}
	return out
}

// TestViewModelPauseNoFencing checks what the timeline of the reference
// timeline says: c1 holds the lock past its lease because of the pause,
// c2 holds it inside its own, and the violation points at both holds.
func TestViewModelPauseNoFencing(t *testing.T) {
	o := runReference(t, "pause-no-fencing")
	vm := buildView(o.File, o.Result)

	if got, want := strings.Join(laneNames(vm), " "), "thread:c1/t1 thread:c2/t1 node:redis service:db"; got != want {
		t.Fatalf("lanes %q, want %q", got, want)
	}
	if len(vm.Holds) != 2 {
		t.Fatalf("%d holds, want 2: %+v", len(vm.Holds), vm.Holds)
	}
	c1, c2 := vm.Holds[0], vm.Holds[1]
	if c1.Client != "c1/t1" || c2.Client != "c2/t1" {
		t.Fatalf("holds by %s and %s", c1.Client, c2.Client)
	}
	if len(vm.Keys) != 2 {
		t.Fatalf("%d key spans on redis, want 2: %+v", len(vm.Keys), vm.Keys)
	}
	k1, k2 := vm.Keys[0], vm.Keys[1]
	if k1.Owner != "c1/t1" || k1.EndHow != trace.KeyExpired || k2.Owner != "c2/t1" || k2.EndHow != trace.KeyDeleted {
		t.Fatalf("key spans %+v", vm.Keys)
	}
	if k1.TTL[0].TTL != 60e9 || k1.End-k1.Start != 60e9 {
		t.Errorf("c1's key: TTL %d, lifetime %d; want 60 s both", k1.TTL[0].TTL, k1.End-k1.Start)
	}
	// c1's lease is its key's life; it believed it held the lock until its
	// release, 10.8 s after the key expired.
	if len(c1.Lease) != 1 || c1.Lease[0] != [2]int64{k1.Start, k1.End} {
		t.Errorf("c1 lease %v, want [%d %d]", c1.Lease, k1.Start, k1.End)
	}
	if len(c1.NoLease) != 1 || c1.NoLease[0] != [2]int64{k1.End, c1.End} {
		t.Errorf("c1 held without lease %v, want [%d %d]", c1.NoLease, k1.End, c1.End)
	}
	if len(c2.NoLease) != 0 || len(c2.Lease) != 1 {
		t.Errorf("c2 lease %v, without lease %v", c2.Lease, c2.NoLease)
	}
	var pause *viewShade
	for i, s := range vm.Shades {
		if s.Kind == "pause" {
			pause = &vm.Shades[i]
		}
	}
	if pause == nil || vm.Lanes[pause.Lane].Name != "c1/t1" || pause.End-pause.Start != 70e9 {
		t.Fatalf("pause shade %+v", pause)
	}
	if len(vm.Violations) != 2 {
		t.Fatalf("%d violations, want 2", len(vm.Violations))
	}
	mutex, res := vm.Violations[0], vm.Violations[1]
	if mutex.Property != checker.PropMutex || len(mutex.Holds) != 2 || mutex.Holds[0] != 0 || mutex.Holds[1] != 1 {
		t.Errorf("mutex violation holds %v", mutex.Holds)
	}
	if mutex.Start > c1.Start || mutex.End < c1.End {
		t.Errorf("mutex window [%d %d] does not cover c1's hold [%d %d]", mutex.Start, mutex.End, c1.Start, c1.End)
	}
	if len(mutex.Events) == 0 {
		t.Errorf("mutex violation cites no events")
	}
	if res.Property != checker.PropDamage || len(res.Ops) != 2 {
		t.Fatalf("resource violation ops %v", res.Ops)
	}
	for _, oi := range res.Ops {
		if op := vm.Ops[oi]; op.Kind != model.OpInsert || op.Key != res.Key {
			t.Errorf("resource violation points at %+v", op)
		}
	}
	for i, l := range vm.EventLane {
		if l < 0 {
			t.Errorf("event %d (%+v) has no lane", i, vm.Events[i])
		}
	}
}

// TestViewModelFaultKinds feeds the model the deployment and fault events
// of other topologies: replication, promotion, node restarts, clock jumps,
// partitions, and a key that a promotion lost.
func faultKindsFile() *traces.File {
	const s = int64(1e9)
	acq := func(id int, c string, call, ret int64, res string) trace.Op {
		return trace.Op{ID: id, Client: c, Process: processOf(c), Kind: model.OpAcquire, Key: "L", Result: res, Call: call, Return: ret}
	}
	at := func(t int64, e trace.Event) trace.Event {
		e.T = t
		return e
	}
	set := func(v string) []string { return []string{"SET", "L", v, "PX", "10000", "NX"} }
	tr := &trace.Trace{
		Events: []trace.Event{
			at(1*s, trace.Command("m", "c1/t1", "L", set("v1"), "OK", trace.KeyCreated)),
			at(2*s, trace.Partition("c1<->m", trace.FaultPartition, 5*time.Second).WithFault(1)),
			at(2*s, trace.FaultApplied("r", trace.FaultReplicationLag, "replication 500 ms slower", 2*time.Second).WithFault(2)),
			at(3*s, trace.ClockJump("m", 2*time.Second).WithFault(3)),
			at(4*s, trace.NodeCrash("m", 3*time.Second).WithFault(4)),
			at(5*s, trace.MasterDown("sentinel", "m down").WithFault(4)),
			at(5*s, trace.Lost(trace.EvPromote, "r", "L", "not replicated from m").WithFault(4)),
			at(6*s, trace.Heal("c1<->m", trace.FaultPartition).WithFault(1)),
			at(6*s, trace.Command("r", "c2/t1", "L", set("v2"), "OK", trace.KeyCreated)),
			at(6*s+1, trace.Replicated("m2", "L", trace.KeyCreated, "")),
			at(7*s, trace.NodeStart("m", "persistence always").WithFault(4)),
			at(8*s, trace.Expire("r", "L")),
		},
		Ops: []trace.Op{
			acq(0, "c1/t1", 1*s-10, 1*s+10, model.ResOK),
			acq(1, "c2/t1", 6*s-10, 6*s+10, model.ResOK),
			{ID: 2, Client: "c2/t1", Process: "c2", Kind: model.OpRelease, Key: "L", Call: 9 * s, Return: -1},
		},
		Stats: trace.Stats{SimNs: 10 * s},
	}
	faults := []trace.Fault{
		{Kind: trace.FaultPartition, Target: "c1<->m", AtMs: 2000, DurMs: 5000},
		{Kind: trace.FaultReplicationLag, Target: "r", AtMs: 2000, DurMs: 2000, Value: 500},
		{Kind: trace.FaultClockJump, Target: "m", AtMs: 3000, Value: 2000},
		{Kind: trace.FaultFailover, Target: "m", AtMs: 4000, DurMs: 3000},
	}
	return &traces.File{Format: traces.FormatVersion, Scenario: protocols.Scenario{Protocol: "x", Workload: "y", Faults: faults}, Trace: tr,
		Report: checker.Report{Verdict: checker.VerdictOK}}
}

func TestViewModelFaultKinds(t *testing.T) {
	const s = int64(1e9)
	f := faultKindsFile()
	vm := buildView(f, checker.Check(f.Trace, checker.Options{}))
	if got, want := strings.Join(laneNames(vm), " "), "thread:c1/t1 thread:c2/t1 node:m node:m2 node:r other:sentinel"; got != want {
		t.Fatalf("lanes %q, want %q", got, want)
	}
	// m's key: created at 1 s with 10 s TTL, the clock jumped 2 s at 3 s
	// (8 s left -> 6 s), the node went down at 4 s and came back at 7 s
	// without a lost marker: the key comes back.
	var onM []viewKeySpan
	for _, k := range vm.Keys {
		if k.Node == "m" {
			onM = append(onM, k)
		}
	}
	if len(onM) != 2 || onM[0].EndHow != "node down" || onM[0].End != 4*s || onM[1].Start != 7*s || onM[1].Owner != "c1/t1" {
		t.Fatalf("spans on m: %+v", onM)
	}
	if ttl := onM[0].TTL; len(ttl) != 2 || ttl[1].TTL != 6*s {
		t.Errorf("TTL points on m %+v, want 10 s then 6 s at the jump", ttl)
	}
	for _, k := range vm.Keys {
		if k.Node == "m2" && k.Owner != "c2/t1" {
			t.Errorf("replicated key owner %q, want c2/t1 (the latest owner)", k.Owner)
		}
		if k.Node == "r" && (k.EndHow != trace.KeyExpired || k.TTL[0].TTL != 2*s) {
			t.Errorf("key on r: %+v; the expiry must fix its TTL to 2 s", k)
		}
	}
	// c1's lease on m (the only master when it acquired) stops while m is
	// down and resumes when it comes back with the key; c1 never released.
	h1 := vm.Holds[0]
	if h1.Quorum != 1 || len(h1.Lease) != 2 || h1.Lease[0] != [2]int64{1 * s, 4 * s} || h1.Lease[1] != [2]int64{7 * s, 10 * s} {
		t.Errorf("c1 quorum %d lease %v", h1.Quorum, h1.Lease)
	}
	if len(h1.NoLease) != 1 || h1.NoLease[0] != [2]int64{4 * s, 7 * s} {
		t.Errorf("c1 without lease %v", h1.NoLease)
	}
	// c2 acquired on the promoted replica: one serving master suffices.
	if h2 := vm.Holds[1]; h2.Quorum != 1 || len(h2.NoLease) != 1 || h2.NoLease[0][0] != 8*s {
		t.Errorf("c2 quorum %d, without lease %v; want 1 and from the expiry at 8 s", h2.Quorum, h2.NoLease)
	}
	kinds := map[string]int64{}
	lanes := map[string][]string{}
	for _, sh := range vm.Shades {
		kinds[sh.Kind] = sh.End - sh.Start
		lanes[sh.Kind] = append(lanes[sh.Kind], vm.Lanes[sh.Lane].Name)
	}
	if kinds["partition"] != 4*s || kinds["down"] != 3*s || kinds["fault"] != 2*s {
		t.Errorf("shades %+v: want a 4 s partition (healed early), 3 s down and a 2 s fault", vm.Shades)
	}
	if got := strings.Join(lanes["partition"], " "); got != "c1/t1 m" {
		t.Errorf("the partition c1<->m shades %q, want both ends", got)
	}
	// Each bar names the scheduled fault behind it.
	for _, sh := range vm.Shades {
		want := map[string]string{"partition": "fault #1: partition", "fault": "fault #2: replication-lag", "down": "fault #4: down"}[sh.Kind]
		if !strings.HasPrefix(sh.Label, want) {
			t.Errorf("%s shade label %q, want it to start %q", sh.Kind, sh.Label, want)
		}
	}
}

func TestAtLeast(t *testing.T) {
	iv := [][2]int64{{0, 10}, {2, 8}, {4, 12}, {20, 30}}
	if got := atLeast(iv, 2); len(got) != 1 || got[0] != [2]int64{2, 10} {
		t.Errorf("atLeast 2 = %v", got)
	}
	if got := atLeast(iv, 1); len(got) != 2 || got[0] != [2]int64{0, 12} || got[1] != [2]int64{20, 30} {
		t.Errorf("atLeast 1 = %v", got)
	}
	if got := subtract([2]int64{0, 40}, atLeast(iv, 1)); len(got) != 2 || got[0] != [2]int64{12, 20} || got[1] != [2]int64{30, 40} {
		t.Errorf("subtract = %v", got)
	}
	if !naturalLess("c2", "c10") || naturalLess("c10", "c2") || !naturalLess("redis", "redis-1") {
		t.Error("naturalLess")
	}
}

// hostile is a trace whose every string tries to become markup.
func hostileFile() *traces.File {
	const evil = `</script><script>document.body.setAttribute("data-pwned","1")</script>` +
		`<img src=x onerror="document.body.setAttribute('data-pwned','2')">&amp;'"`
	tr := &trace.Trace{
		Events: []trace.Event{
			trace.Command("redis", "c1/"+evil, "lock"+evil, []string{"SET", "lock" + evil, evil, "EX", "1", "NX"}, "OK", trace.KeyCreated),
			trace.Pause("c1", evil, 5*time.Millisecond),
			trace.Note("c1", "c1/"+evil, "", evil),
			trace.Expire("redis", "lock"+evil),
		},
		Ops: []trace.Op{
			{ID: 0, Client: "c1/" + evil, Process: "c1", Kind: model.OpAcquire, Key: "lock" + evil, Result: model.ResOK, Call: 0, Return: 2e6},
			{ID: 1, Client: "c1/" + evil, Process: "c1", Kind: model.OpInsert, Key: evil, Value: evil, Result: evil, Call: 2e6, Return: 1500e6},
		},
		Scripts: map[string]string{"abc": evil},
		Stats:   trace.Stats{SimNs: 2e9, Events: 4},
	}
	for i, t := range []int64{1e6, 2e6, 3e6, 1001e6} {
		tr.Events[i].T = t
	}
	return &traces.File{
		Format:   traces.FormatVersion,
		Scenario: protocols.Scenario{Protocol: "setnx-del" + evil, Workload: evil, Faults: []trace.Fault{{Kind: evil, Target: evil}}},
		Report: checker.Report{Verdict: checker.VerdictViolation, Violations: []checker.Violation{{
			Property: checker.PropMutex, Cause: evil, Key: "lock" + evil, Clients: []string{"c1/" + evil, evil},
			AtMs: 1, Explanation: "explained " + evil, Events: []int{0, 1, 99},
		}}},
		TraceSHA256: evil,
		Trace:       tr,
	}
}

var scriptOpen = regexp.MustCompile(`(?i)<script`)

func TestWriteViewEscapesTraceStrings(t *testing.T) {
	f := hostileFile()
	lin := []byte(`<html><body>"><script>document.title="pwned"</script></body></html>`)
	var buf bytes.Buffer
	if err := WriteView(&buf, f, lin, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// Exactly the page's own two script elements (data and code).
	if n := len(scriptOpen.FindAllStringIndex(page, -1)); n != 2 {
		t.Errorf("%d <script elements in the page, want 2", n)
	}
	for _, bad := range []string{"<img", `"1")</script>`, `onerror="`, `"><script`} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	// The linearization page is in the srcdoc attribute, escaped once.
	if !strings.Contains(page, `srcdoc="`+html.EscapeString(string(lin))+`"`) {
		t.Error("linearization page not embedded as escaped srcdoc")
	}
	// The data decodes back to the very strings of the trace.
	data := extract(t, page)
	var vm viewModel
	if err := json.Unmarshal([]byte(data), &vm); err != nil {
		t.Fatalf("embedded data: %v", err)
	}
	if vm.Violations[0].Explanation != f.Report.Violations[0].Explanation || vm.Events[0].Key != f.Trace.Events[0].Key {
		t.Error("embedded data does not round-trip the trace's strings")
	}
}

func extract(t *testing.T, page string) string {
	t.Helper()
	const open = `<script type="application/json" id="locksim-data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("no data element")
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	if j < 0 {
		t.Fatal("data element not closed")
	}
	return rest[:j]
}

var remoteRef = regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//|@import|url\(\s*["']?(https?:)?//|<link\b`)

func TestOutcomeViewIsSelfContained(t *testing.T) {
	o := runReference(t, traces.DefaultReference)
	var buf bytes.Buffer
	if err := WriteOutcomeView(&buf, o); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if m := remoteRef.FindString(page); m != "" {
		t.Errorf("page loads something from elsewhere: %q", m)
	}
	for _, want := range []string{`id="lin-frame"`, `sandbox="allow-scripts"`, "<title>locksim: setnx-del / unique-name, seed 1: violation</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	var vm viewModel
	if err := json.Unmarshal([]byte(extract(t, page)), &vm); err != nil {
		t.Fatal(err)
	}
	if len(vm.Violations) != len(o.File.Report.Violations) || len(vm.Events) != len(o.File.Trace.Events) {
		t.Error("embedded data is not the run's")
	}
}

func TestOutcomeViewWithoutLockHistory(t *testing.T) {
	// A run whose lock history is empty still gets a timeline; the
	// linearization tab says why it is empty.
	f := hostileFile()
	f.Trace.Ops = nil
	var buf bytes.Buffer
	if err := WriteView(&buf, f, nil, errors.New("no lock operations to visualize")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "No linearization view: no lock operations to visualize") {
		t.Error("missing linearization note")
	}
}

func TestViewFileVerifiesHash(t *testing.T) {
	o := runReference(t, traces.DefaultReference)
	b, err := json.Marshal(o.File)
	if err != nil {
		t.Fatal(err)
	}
	f, err := traces.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ViewFile(f); err != nil {
		t.Fatalf("view of an intact file: %v", err)
	}
	// A report that claims what the trace does not show.
	g := *f
	g.Report.Verdict = "ok"
	if _, err := ViewFile(&g); err == nil || !strings.Contains(err.Error(), "report mismatch") {
		t.Errorf("edited report: err %v, want a report mismatch", err)
	}
	// An edited trace no longer matches its own hash.
	h := *f
	tr := *f.Trace
	tr.Events = append([]trace.Event(nil), tr.Events...)
	tr.Events[0].Party = "mallory"
	h.Trace = &tr
	if _, err := ViewFile(&h); err == nil || !strings.Contains(err.Error(), "hash mismatch") {
		t.Errorf("edited trace: err %v, want a hash mismatch", err)
	}
}

func TestDeferRender(t *testing.T) {
	o := runReference(t, traces.DefaultReference)
	var lin bytes.Buffer
	if err := o.Result.WriteLinearization(&lin); err != nil {
		t.Fatal(err)
	}
	got := string(deferRender(lin.Bytes()))
	if got == lin.String() || !strings.Contains(got, "laidOut() || tries-- <= 0) render(data)") {
		t.Fatal("porcupine's page was not patched: has its shape changed? (see deferRender)")
	}
	if strings.Count(got, "render(data)") != strings.Count(lin.String(), "render(data)") {
		t.Error("render(data) calls changed in number")
	}
	other := []byte("<html><body>render(data) elsewhere</body></html>")
	if string(deferRender(other)) != string(other) {
		t.Error("a page of another shape was changed")
	}
}

// TestViewAssetsCannotCloseTheirElements guards the raw insertion of the
// script and the style sheet into the page.
func TestViewAssetsCannotCloseTheirElements(t *testing.T) {
	for _, name := range []string{"viewassets/view.js", "viewassets/view.css"} {
		b, err := viewAssets.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		low := strings.ToLower(string(b))
		for _, bad := range []string{"</script", "</style", "<!--", "innerhtml", "insertadjacenthtml", "document.write", "{{locksim_"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}

// TestViewHoldEndsAtCrash: a hold ends where its process crashed, as the
// checker judged it (the view used to draw it to the end of the run,
// with no lease after the crash).
func TestViewHoldEndsAtCrash(t *testing.T) {
	o, err := traces.Execute(protocols.Scenario{Seed: 3, Protocol: "setnx-del", FaultKinds: []string{"client-crash"}, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	crash := map[string]int64{}
	for _, e := range o.File.Trace.Events {
		if _, seen := crash[e.Party]; e.Kind == trace.EvCrash && !seen {
			crash[e.Party] = e.T
		}
	}
	vm := buildView(o.File, o.Result)
	ended := 0
	for _, h := range vm.Holds {
		at, crashed := crash[processOf(h.Client)]
		if !crashed || h.Start > at {
			continue
		}
		if h.End > at {
			t.Fatalf("hold %+v outlives its process's crash at %d", h, at)
		}
		if h.End == at && h.Release == -1 {
			ended++
		}
	}
	if ended == 0 {
		t.Fatalf("no hold ended by the crash (crashes %v)", crash)
	}
}

// TestViewHeadsViolationsByProperty: the timeline lists violations by
// property, in the text report's order, each under its heading.
func TestViewHeadsViolationsByProperty(t *testing.T) {
	o := runReference(t, "foreign-release")
	vm := buildView(o.File, o.Result)
	var got []string
	for _, v := range vm.Violations {
		if v.Heading != checker.Heading(v.Property) {
			t.Errorf("%s violation under %q", v.Property, v.Heading)
		}
		if len(got) == 0 || got[len(got)-1] != v.Property {
			got = append(got, v.Property)
		}
	}
	var want []string
	for _, g := range o.File.Report.Groups() {
		want = append(want, g.Property)
	}
	if len(want) < 2 || !slices.Equal(got, want) {
		t.Errorf("properties in the view %v, want %v, each once", got, want)
	}
}
