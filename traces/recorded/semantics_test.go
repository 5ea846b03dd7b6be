package recorded

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
)

// checkJSONL reads a JSON Lines history and checks it as locksim check
// does.
func checkJSONL(t *testing.T, text string) checker.Report {
	t.Helper()
	return checkText(t, text, FormatJSONL)
}

// checkText reads a history in format and checks it as locksim check
// does.
func checkText(t *testing.T, text, format string) checker.Report {
	t.Helper()
	h, err := Read(strings.NewReader(text), format)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	o, err := Check(h, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return o.File.Report
}

// summary is a report's verdict and its violations' properties and
// causes, one a line.
func summary(r checker.Report) string {
	out := r.Verdict
	for _, v := range r.Violations {
		out += "\n" + v.Property + " " + v.Cause + " " + v.Key + " " + strings.Join(v.Clients, ",")
	}
	return out
}

// A holder's release that never completes and one that ends in info are
// both of unknown outcome: judged alike, and either may have deleted the
// key before the rival's acquire.
const infoReleaseJSONL = `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":50000000}
{"process":"a","type":"info","f":"release","key":"lock","value":"ta","time":55000000}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":60000000}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":61000000}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":300000000}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":301000000}
`

// TestPendingReleaseIsLikeInfo checks infoReleaseJSONL.
func TestPendingReleaseIsLikeInfo(t *testing.T) {
	const info = infoReleaseJSONL
	infoLine := `{"process":"a","type":"info","f":"release","key":"lock","value":"ta","time":55000000}` + "\n"
	pending := strings.Replace(info, infoLine, "", 1)
	if pending == info {
		t.Fatal("no info line to drop")
	}
	for _, lease := range []string{"", `,"lease_ms":10000`} {
		withLease := func(s string) string {
			return strings.ReplaceAll(s, `"time":1000000}`, `"time":1000000`+lease+`}`)
		}
		ri, rp := checkJSONL(t, withLease(info)), checkJSONL(t, withLease(pending))
		if summary(ri) != summary(rp) {
			t.Fatalf("lease %q: info release:\n%s\npending release:\n%s", lease, summary(ri), summary(rp))
		}
		if ri.Verdict != checker.VerdictOK {
			t.Fatalf("lease %q: %s, want ok: the release may have taken effect before b's acquire", lease, summary(ri))
		}
	}
}

// tieHistories have events of different processes at equal times: a
// release returning as the next acquire returns, with and without a
// lease, renewals and fenced writes at one instant.
var tieHistories = map[string]string{
	"release-at-acquire": `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":90000000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":100000000}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":100000000}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta","time":110000000}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":200000000}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":201000000}
`,
	"leases-one-instant": `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"c","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000,"lease_ms":1000}
{"process":"c","type":"fail","f":"acquire","key":"lock","value":null,"time":1000000}
{"process":"a","type":"invoke","f":"write","key":"d","value":"va","token":1,"time":50000000}
{"process":"a","type":"ok","f":"write","key":"d","value":"va","token":1,"time":60000000}
{"process":"a","type":"invoke","f":"renew","key":"lock","value":"ta","time":60000000}
{"process":"a","type":"ok","f":"renew","key":"lock","value":"ta","time":60000000,"lease_ms":1000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":100000000}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta","time":100000000}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":100000000}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":100000000,"lease_ms":100}
{"process":"c","type":"invoke","f":"acquire","key":"lock","value":null,"time":100000000}
{"process":"c","type":"fail","f":"acquire","key":"lock","value":null,"time":100000000}
{"process":"b","type":"invoke","f":"write","key":"d","value":"vb","token":2,"time":100000000}
{"process":"b","type":"ok","f":"write","key":"d","value":"vb","token":2,"time":150000000}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":200000000}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":201000000}
{"process":"c","type":"invoke","f":"acquire","key":"lock","value":null,"time":201000000}
{"process":"c","type":"ok","f":"acquire","key":"lock","value":"tc","time":201000000,"lease_ms":100}
{"process":"c","type":"invoke","f":"write","key":"d","value":"vc","token":3,"time":201000000}
{"process":"c","type":"ok","f":"write","key":"d","value":"vc","token":3,"time":202000000}
`,
	"double-grant-at-ties": `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":5}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":5}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":9}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":9}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta","time":9}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":9}
`,
}

// shuffleTies permutes the lines of a history sorted by time among those
// of one time, keeping each process's lines in their order.
func shuffleTies(text string, rnd *rand.Rand) string {
	type line struct {
		s    string
		proc string
		time int64
	}
	var ls []line
	for _, s := range strings.SplitAfter(text, "\n") {
		if s == "" {
			continue
		}
		var e struct {
			Process string `json:"process"`
			Time    int64  `json:"time"`
		}
		if err := json.Unmarshal([]byte(s), &e); err != nil {
			panic(err)
		}
		ls = append(ls, line{s, e.Process, e.Time})
	}
	var out strings.Builder
	for i := 0; i < len(ls); {
		j := i
		byProc := map[string][]string{}
		var procs []string
		for ; j < len(ls) && ls[j].time == ls[i].time; j++ {
			if byProc[ls[j].proc] == nil {
				procs = append(procs, ls[j].proc)
			}
			byProc[ls[j].proc] = append(byProc[ls[j].proc], ls[j].s)
		}
		for n := j - i; n > 0; n-- {
			// Take the next line of a process drawn in proportion to what
			// it has left: every interleaving can come out.
			k := rnd.IntN(n)
			for _, p := range procs {
				if k < len(byProc[p]) {
					out.WriteString(byProc[p][0])
					byProc[p] = byProc[p][1:]
					break
				}
				k -= len(byProc[p])
			}
		}
		i = j
	}
	return out.String()
}

// TestTiesAcrossProcessesAreConcurrent: events of different processes
// at one time are concurrent, so however their lines interleave the
// report is the same, word for word.
func TestTiesAcrossProcessesAreConcurrent(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for name, text := range tieHistories {
		t.Run(name, func(t *testing.T) {
			want := checkJSONL(t, text)
			seen := map[string]bool{text: true}
			for range 60 {
				s := shuffleTies(text, rnd)
				if seen[s] {
					continue
				}
				seen[s] = true
				if got := checkJSONL(t, s); !reflect.DeepEqual(got, want) {
					t.Fatalf("lines reordered among equal times:\n%s\nreport:\n%s\nwant (as written):\n%s", s, summary(got), summary(want))
				}
			}
			if len(seen) < 2 {
				t.Fatalf("only %d interleavings drawn", len(seen))
			}
		})
	}
}

// A double grant (b's acquire returns ok while a holds the lock with no
// lease, then both release their own) is one mutual-exclusion violation
// whose cause says what the history shows: two acquires granted while
// the first was held. Nobody released a lock it did not hold, so
// --fail-on ownership passes it. The same with a lease not yet run out,
// and from a Jepsen history.
func TestDoubleGrantIsMutualExclusion(t *testing.T) {
	const noLease = `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":10000000}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":11000000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":100000000}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta","time":101000000}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":200000000}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":201000000}
`
	lease := strings.ReplaceAll(noLease, `"time":1000000}`, `"time":1000000,"lease_ms":1000}`)
	ownership, err := checker.ParseFailOn("ownership")
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]checker.Report{"no lease": checkJSONL(t, noLease), "lease": checkJSONL(t, lease), "edn": checkText(t, doubleGrantEDN, FormatEDN)} {
		if len(r.Violations) != 1 {
			t.Fatalf("%s: %s, want one violation", name, summary(r))
		}
		v := r.Violations[0]
		if v.Property != checker.PropMutex || v.Cause != checker.CauseDoubleGrant || !strings.Contains(v.Explanation, "two acquires granted while the first was held") {
			t.Fatalf("%s: %+v, want mutual exclusion, double-grant", name, v)
		}
		if r.Fails(ownership) {
			t.Fatalf("%s: fails --fail-on ownership: %s", name, summary(r))
		}
	}
}

// A holder the history stops showing (crashed, silent, or told by a
// failed renew that its key was gone) may lose a lease lock to another
// client once its lease could have run out: no violation. What the
// history shows still counts: an operation of the holder ending after
// the rival's grant, or a grant before the holder's lease could have run
// out.
func TestSilentLeaseHolderMayLoseTheLock(t *testing.T) {
	const head = `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000,"lease_ms":100}
`
	rival := func(at int64) string {
		ms := func(d int64) string { return strconv.FormatInt((at+d)*1_000_000, 10) }
		return `{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":` + ms(0) + `}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":` + ms(1) + `,"lease_ms":1000}
{"process":"b","type":"invoke","f":"write","key":"data","value":"vb","time":` + ms(50) + `}
{"process":"b","type":"ok","f":"write","key":"data","value":"vb","time":` + ms(51) + `}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":` + ms(100) + `}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":` + ms(101) + `}
`
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"crashed after the acquire", head + rival(200), "ok"},
		{"crashed with a write pending", head + `{"process":"a","type":"invoke","f":"write","key":"data","value":"va","time":10000000}
` + rival(200), "ok"},
		{"renew failed", head + `{"process":"a","type":"invoke","f":"renew","key":"lock","value":"ta","time":120000000}
{"process":"a","type":"fail","f":"renew","key":"lock","value":"ta","time":121000000}
` + rival(150), "ok"},
		{"renew of unknown outcome", head + `{"process":"a","type":"invoke","f":"renew","key":"lock","value":"ta","time":80000000}
{"process":"a","type":"info","f":"renew","key":"lock","value":"ta","time":85000000}
` + rival(150), "ok"},
		{"renew failed early, then a rival", strings.Replace(head, `"lease_ms":100}`, `"lease_ms":10000}`, 1) + `{"process":"a","type":"invoke","f":"renew","key":"lock","value":"ta","time":20000000}
{"process":"a","type":"fail","f":"renew","key":"lock","value":"ta","time":21000000}
` + rival(30), "ok"},
		{"wrote after the rival's grant", head + rival(200) + `{"process":"a","type":"invoke","f":"write","key":"data","value":"va","time":260000000}
{"process":"a","type":"ok","f":"write","key":"data","value":"va","time":261000000}
`, "violation\nmutual-exclusion premature-expiry lock a,b"},
		{"granted before the lease could run out", head + rival(50), "violation\nmutual-exclusion double-grant lock a,b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(checkJSONL(t, tc.text)); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// Tokens that go backwards between two holds that do not overlap (a
// writes with token 2, releases; b acquires and writes with token 1) are
// a fencing regression: the cause names it, and the damage counts it, so
// the damage heading does not say none above the violation.
const fenceRegressionJSONL = `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000,"lease_ms":1000}
{"process":"a","type":"invoke","f":"write","key":"d","value":"va","token":2,"time":10000000}
{"process":"a","type":"ok","f":"write","key":"d","value":"va","token":2,"time":11000000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":20000000}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta","time":21000000}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":30000000}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":31000000,"lease_ms":1000}
{"process":"b","type":"invoke","f":"write","key":"d","value":"vb","token":1,"time":40000000}
{"process":"b","type":"ok","f":"write","key":"d","value":"vb","token":1,"time":41000000}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":50000000}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":51000000}
`

// TestFenceRegressionIsNamedAndCounted checks fenceRegressionJSONL.
func TestFenceRegressionIsNamedAndCounted(t *testing.T) {
	const text = fenceRegressionJSONL
	r := checkJSONL(t, text)
	if got, want := summary(r), "violation\ndamage "+checker.CauseFenceRegression+" d a,b"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if r.Damage.Total() == 0 {
		t.Fatalf("damage %+v: none counted under a damage violation", r.Damage)
	}
	// Tokens in order: nothing.
	if r := checkJSONL(t, strings.ReplaceAll(text, `"token":2`, `"token":0`)); r.Verdict != checker.VerdictOK || r.Damage.Total() != 0 {
		t.Fatalf("tokens in order: %s, damage %+v", summary(r), r.Damage)
	}
}

// A renew racing a rival's grant: the holder's renew is invoked before
// its lease runs out and fails after a rival took the lock. The failed
// renew found the key gone; it shows no acting under the lock, so the
// rival's grant is legal. The same renew returning ok after the rival's
// grant renewed the rival's key: a foreign renewal (ownership), and the
// holder acted under a lock it had lost. A write after the failed renew
// is acting: the explanation says the renew failed, not that none
// reached the server.
func TestRenewRacingARival(t *testing.T) {
	const head = `{"process":"p0","type":"invoke","f":"acquire","key":"L","value":null,"time":0}
{"process":"p0","type":"ok","f":"acquire","key":"L","value":"a","lease_ms":1000,"time":10000000}
{"process":"p0","type":"invoke","f":"renew","key":"L","value":"a","lease_ms":1000,"time":950000000}
{"process":"p1","type":"invoke","f":"acquire","key":"L","value":null,"time":1040000000}
{"process":"p1","type":"ok","f":"acquire","key":"L","value":"b","lease_ms":1000,"time":1050000000}
`
	const failed = `{"process":"p0","type":"fail","f":"renew","key":"L","value":"a","time":1200000000}
`
	const renewed = `{"process":"p0","type":"ok","f":"renew","key":"L","value":"a","time":1200000000}
`
	const write = `{"process":"p0","type":"invoke","f":"write","key":"D","value":"x","time":1300000000}
{"process":"p0","type":"ok","f":"write","key":"D","value":"x","time":1310000000}
`
	if got := summary(checkJSONL(t, head+failed)); got != checker.VerdictOK {
		t.Fatalf("failed renew: got\n%s\nwant ok", got)
	}
	r := checkJSONL(t, head+renewed)
	if got, want := summary(r), "violation\nownership foreign-renewal L p1,p0\nmutual-exclusion premature-expiry L p0,p1"; got != want {
		t.Fatalf("renew ok after the rival's grant: got\n%s\nwant\n%s", got, want)
	}
	if ex := r.Violations[1].Explanation; !strings.Contains(ex, "the renew at t=0.95 s returned ok only at t=1.20 s, after the key had expired") {
		t.Fatalf("renew ok after the rival's grant: %s", ex)
	}
	r = checkJSONL(t, head+failed+write)
	if got, want := summary(r), "violation\nmutual-exclusion premature-expiry L p0,p1"; got != want {
		t.Fatalf("write after a failed renew: got\n%s\nwant\n%s", got, want)
	}
	if ex := r.Violations[0].Explanation; !strings.Contains(ex, "the renew at t=0.95 s failed (at t=1.20 s): the key was gone") || strings.Contains(ex, "none reached") {
		t.Fatalf("write after a failed renew: %s", ex)
	}
}

// A write's token may be given on its completion only: it is the token
// the storage judged, so a later write accepted with a lower token is a
// fencing regression, as when the invoke gives it. The same token on
// both lines, as a number and a string, is one token.
func TestTokenOnTheCompletion(t *testing.T) {
	text := strings.NewReplacer(`"value":"va","token":2,"time":10000000`, `"value":"va","time":10000000`,
		`"value":"vb","token":1,"time":41000000`, `"value":"vb","token":"1","time":41000000`).Replace(fenceRegressionJSONL)
	if strings.Count(text, `"token"`) != 3 {
		t.Fatalf("the history did not change as meant:\n%s", text)
	}
	if got, want := summary(checkJSONL(t, text)), "violation\ndamage "+checker.CauseFenceRegression+" d a,b"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A release that failed did not happen: its holder keeps the key. With
// no lease (a Jepsen mutex) a later grant to another process is a double
// grant, as the inferred server lane draws it; with a lease not yet run
// out, too. Once the lease could have run out, or once the holder
// released the key (retried) or took it again and released it, the
// rival's grant is legal.
func TestFailedReleaseKeepsTheLock(t *testing.T) {
	text := strings.Replace(infoReleaseJSONL, `"type":"info","f":"release"`, `"type":"fail","f":"release"`, 1)
	lease := func(ms string) string {
		return strings.Replace(text, `"time":1000000}`, `"time":1000000,"lease_ms":`+ms+`}`, 1)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"no lease", text, "violation\nmutual-exclusion double-grant lock a,b"},
		{"lease not run out", lease("1000"), "violation\nmutual-exclusion double-grant lock a,b"},
		{"lease run out", lease("20"), "ok"},
		{"released again", strings.Replace(text, `{"process":"b","type":"invoke"`, `{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":56000000}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta","time":57000000}
{"process":"b","type":"invoke"`, 1), "ok"},
		{"acquired again, then released", strings.Replace(text, `{"process":"b","type":"invoke"`, `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":56000000}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta2","time":56500000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta2","time":57000000}
{"process":"a","type":"ok","f":"release","key":"lock","value":"ta2","time":58000000}
{"process":"b","type":"invoke"`, 1), "ok"},
	} {
		r := checkJSONL(t, tc.text)
		if got := summary(r); got != tc.want {
			t.Fatalf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
		if len(r.Violations) > 0 && !strings.Contains(r.Violations[0].Explanation, "its release at t=0.050 s failed") {
			t.Fatalf("%s: %s", tc.name, r.Violations[0].Explanation)
		}
	}
}

// The lock's own fencing tokens going backwards: a is granted token 2,
// writes and releases; b is then granted token 1, and the storage
// refuses its write with it. The lower grant is a fence-regression on
// the lock key, and b's refused write, the rightful holder's, is not
// counted as a stale write fencing rejected. Tokens in order: nothing.
func TestLockTokensGoingBackwards(t *testing.T) {
	text := strings.NewReplacer(`"value":"ta","time":1000000,`, `"value":"ta","token":2,"time":1000000,`,
		`"value":"tb","time":31000000,`, `"value":"tb","token":"1","time":31000000,`,
		`"type":"ok","f":"write","key":"d","value":"vb"`, `"type":"fail","f":"write","key":"d","value":"vb"`).Replace(fenceRegressionJSONL)
	if strings.Count(text, `"token"`) != 6 || !strings.Contains(text, `"fail"`) {
		t.Fatalf("the history did not change as meant:\n%s", text)
	}
	r := checkJSONL(t, text)
	if got, want := summary(r), "violation\ndamage "+checker.CauseFenceRegression+" lock a,b"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if ex := r.Violations[0].Explanation; !strings.Contains(ex, "the lock granted b token 1 at t=0.031 s after granting a token 2 at t=0.001 s") ||
		!strings.Contains(ex, "the rightful holder's write, not a stale one") {
		t.Fatalf("explanation: %s", ex)
	}
	if r.Damage.StaleWritesRejected != 0 || r.Damage.FenceRegressions != 0 {
		t.Fatalf("damage %+v: b's refused write counted", r.Damage)
	}
	inOrder := strings.Replace(text, `"token":"1","time":31000000`, `"token":"3","time":31000000`, 1)
	if r := checkJSONL(t, inOrder); r.Verdict != checker.VerdictOK {
		t.Fatalf("tokens in order: %s", summary(r))
	}
}
