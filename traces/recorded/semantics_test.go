package recorded

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
)

// checkJSONL reads a JSON Lines history and checks it as locksim check
// does.
func checkJSONL(t *testing.T, text string) checker.Report {
	t.Helper()
	h, err := ReadJSONL(strings.NewReader(text))
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
func TestPendingReleaseIsLikeInfo(t *testing.T) {
	const info = `{"process":"a","type":"invoke","f":"acquire","key":"lock","value":null,"time":0}
{"process":"a","type":"ok","f":"acquire","key":"lock","value":"ta","time":1000000}
{"process":"a","type":"invoke","f":"release","key":"lock","value":"ta","time":50000000}
{"process":"a","type":"info","f":"release","key":"lock","value":"ta","time":55000000}
{"process":"b","type":"invoke","f":"acquire","key":"lock","value":null,"time":60000000}
{"process":"b","type":"ok","f":"acquire","key":"lock","value":"tb","time":61000000}
{"process":"b","type":"invoke","f":"release","key":"lock","value":"tb","time":300000000}
{"process":"b","type":"ok","f":"release","key":"lock","value":"tb","time":301000000}
`
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
