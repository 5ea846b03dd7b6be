package recorded

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/checker"
)

// A Jepsen lock history where process 1 is granted the mutex while
// process 0 still holds it, with a nemesis event that is skipped.
const doubleGrantEDN = `{:index 0, :time 100000000, :type :invoke, :process 0, :f :acquire, :value nil}
{:index 1, :time 200000000, :type :ok, :process 0, :f :acquire, :value nil}
{:process :nemesis, :type :info, :f :start-partition, :value nil, :time 250000000}
{:index 2, :time 300000000, :type :invoke, :process 1, :f :acquire, :value nil}
{:index 3, :time 400000000, :type :ok, :process 1, :f :acquire, :value nil}
{:index 4, :time 500000000, :type :invoke, :process 0, :f :release, :value nil}
{:index 5, :time 600000000, :type :ok, :process 0, :f :release, :value nil}
{:index 6, :time 700000000, :type :invoke, :process 1, :f :release, :value nil}
{:index 7, :time 800000000, :type :info, :process 1, :f :release, :value nil, :error "timeout"}
`

func TestEDNDoubleGrantFound(t *testing.T) {
	check := func(text string) *checker.Report {
		h, err := ReadEDN(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		o, err := Check(h, "history.edn")
		if err != nil {
			t.Fatal(err)
		}
		return &o.File.Report
	}
	r := check(doubleGrantEDN)
	var v *checker.Violation
	for i := range r.Violations {
		if r.Violations[i].Property == checker.PropMutex {
			v = &r.Violations[i]
		}
	}
	if r.Verdict != checker.VerdictViolation || v == nil {
		t.Fatalf("double grant not found: %+v", r)
	}
	if v.Key != DefaultEDNKey || strings.Join(v.Clients, ",") != "p0,p1" || v.AtMs != 300 {
		t.Fatalf("violation %+v: want p0 then p1 on %s at 300 ms", v, DefaultEDNKey)
	}
	// The same processes taking turns: no violation.
	serial := strings.NewReplacer(":time 300000000", ":time 650000000", ":time 400000000", ":time 660000000").Replace(doubleGrantEDN)
	serial = strings.Replace(serial, ":time 500000000", ":time 450000000", 1)
	serial = strings.Replace(serial, ":time 600000000", ":time 460000000", 1)
	if r := check(serial); r.Verdict != checker.VerdictOK {
		t.Fatalf("serial history: %+v", r)
	}
}

const pausedJSONL = `{"process":"c1","type":"invoke","f":"acquire","key":"L","value":null,"time":1733390001000000000}
{"process":"c1","type":"ok","f":"acquire","key":"L","value":"a","lease_ms":1000,"time":1733390001001000000}
{"process":"c1","type":"invoke","f":"write","key":"list","value":"c1-1","time":1733390001002000000}
{"process":"c1","type":"ok","f":"write","key":"list","value":"c1-1","time":1733390001003000000}
{"process":"c2","type":"invoke","f":"acquire","key":"L","value":null,"time":1733390001100000000}
{"process":"c2","type":"ok","f":"acquire","key":"L","value":"b","lease_ms":1000,"time":1733390002100000000}
{"process":"c2","type":"invoke","f":"write","key":"list","value":"c2-1","time":1733390002102000000}
{"process":"c2","type":"ok","f":"write","key":"list","value":"c2-1","time":1733390002103000000}
{"process":"c2","type":"invoke","f":"release","key":"L","value":"b","time":1733390002200000000}
{"process":"c2","type":"ok","f":"release","key":"L","value":"b","time":1733390002201000000}
{"process":"c1","type":"invoke","f":"write","key":"list","value":"c1-2","time":1733390004002000000}
{"process":"c1","type":"ok","f":"write","key":"list","value":"c1-2","time":1733390004003000000}
{"process":"c1","type":"invoke","f":"release","key":"L","value":"a","time":1733390004004000000}
{"process":"c1","type":"fail","f":"release","key":"L","value":"a","time":1733390004005000000,"error":"LockNotOwnedError"}
{"process":"reader","type":"invoke","f":"read","key":"list","time":1733390004100000000}
{"process":"reader","type":"ok","f":"read","key":"list","value":"c1-1,c2-1,c1-2","time":1733390004101000000}
`

// A holder paused past its lease: premature expiry, and its write after
// the rival's is a stale write. Times near 1.7e18 ns keep their digits.
func TestPausedHolderPrematureExpiry(t *testing.T) {
	h, err := ReadJSONL(strings.NewReader(pausedJSONL))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Check(h, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// c1's acquire returned at 1733390001001000000, 1 ms after the first
	// event: a float64 holds neither time exactly.
	if got := o.File.Trace.Ops[0].Return; got != 1_000_000 {
		t.Fatalf("acquire returned at %d ns from the start, want 1000000", got)
	}
	r := o.File.Report
	if r.Verdict != checker.VerdictViolation || len(r.Violations) == 0 {
		t.Fatalf("report %+v", r)
	}
	v := r.Violations[0]
	if v.Property != checker.PropMutex || v.Cause != checker.CausePrematureExpiry || v.AtMs != 1100 {
		t.Fatalf("violation %+v", v)
	}
	if r.Damage.StaleWritesAccepted != 1 {
		t.Fatalf("damage %+v, want one stale write", r.Damage)
	}
	// Released before the lease ran out and c2 acquired after: clean.
	ok := strings.NewReplacer("1733390004002000000", "1733390001004000000", "1733390004003000000", "1733390001005000000",
		"1733390004004000000", "1733390001006000000", "1733390004005000000", "1733390001007000000",
		`"fail","f":"release","key":"L","value":"a"`, `"ok","f":"release","key":"L","value":"a"`).Replace(pausedJSONL)
	h, err = ReadJSONL(strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := Check(h, "ok.jsonl"); o.File.Report.Verdict != checker.VerdictOK {
		t.Fatalf("serial history: %+v", o.File.Report)
	}
}

func TestBadInputNamesTheLine(t *testing.T) {
	line := func(p, ty, f string, tm int64) string {
		return `{"process":"` + p + `","type":"` + ty + `","f":"` + f + `","key":"k","time":` + strconv.FormatInt(tm, 10) + "}\n"
	}
	good := line("c1", "invoke", "acquire", 10) + line("c1", "ok", "acquire", 20)
	for _, tc := range []struct {
		name, text, format string
		line               int
		want               string
	}{
		{"truncated", good + `{"process":"c1","type":"invoke","f":"rel`, FormatJSONL, 3, "truncated"},
		{"unknown f", good + line("c1", "invoke", "lock", 30), FormatJSONL, 3, `unknown f "lock"`},
		{"unknown type", good + line("c1", "begin", "release", 30), FormatJSONL, 3, `unknown type "begin"`},
		{"time backwards", good + line("c1", "invoke", "release", 15), FormatJSONL, 3, "time goes backwards within process c1"},
		{"ok without invoke", good + line("c2", "ok", "acquire", 30), FormatJSONL, 3, "without a pending invoke"},
		{"float time", `{"process":"c1","type":"invoke","f":"acquire","key":"k","time":1.7e18}`, FormatJSONL, 1, "not an integer"},
		{"edn truncated", "{:process 0, :type :invoke, :f :acquire, :time 1}\n{:process 0, :type :ok", FormatEDN, 2, "truncated"},
		{"edn unknown f", "{:process 0, :type :invoke, :f :cas, :time 1}", FormatEDN, 1, "unknown :f :cas"},
		{"edn unclosed vector", "[{:index 0, :time 1000, :type :invoke, :process 0, :f :acquire, :value nil}\n", FormatEDN, 1, "the vector '[' opened on this line is never closed"},
		{"edn unclosed vector of many lines", "[\n{:process 0, :type :invoke, :f :acquire, :time 1}\n{:process 0, :type :ok, :f :acquire, :time 2}\n", FormatEDN, 1, "never closed"},
		{"edn after the vector", "[{:process 0, :type :invoke, :f :acquire, :time 1}]\n{:process 0, :type :ok, :f :acquire, :time 2}\n", FormatEDN, 2, "after the ']'"},
		{"edn ] without [", "{:process 0, :type :invoke, :f :acquire, :time 1}]\n", FormatEDN, 1, "closes no '['"},
		{"edn unclosed map", "{:process 0, :type :ok, :f :acquire", FormatEDN, 1, "the '{' at column 1 is never closed by '}'"},
		{"edn fractional process", "{:process 1.5, :type :invoke, :f :acquire, :time 1}", FormatEDN, 1, ":process: 1.5 is not an integer"},
		{"edn negative time", "{:process 0, :type :invoke, :f :acquire, :time -1}", FormatEDN, 1, ":time: -1 is negative"},
		{"edn repeated key", "{:process 0, :type :invoke, :f :acquire, :time 1, :time 2}", FormatEDN, 1, "gives :time twice"},
		{"edn key differs", "{:process 0, :type :invoke, :f :acquire, :key \"a\", :time 1}\n{:process 0, :type :ok, :f :acquire, :key \"b\", :time 2}", FormatEDN, 2, `names key "b", its invoke (line 1) key "a"`},
		{"acquire token not an integer", `{"process":"c1","type":"invoke","f":"acquire","key":"k","time":10}` + "\n" + `{"process":"c1","type":"ok","f":"acquire","key":"k","token":"tok-1","time":20}`, FormatJSONL, 2, "token tok-1 is not an integer"},
		{"process as a number and a string", `{"process":"0","type":"invoke","f":"acquire","key":"k","time":10}` + "\n" + `{"process":0,"type":"ok","f":"acquire","key":"k","time":20}`, FormatJSONL, 2, `process 0 is a number here but a string on line 1: name each process one way`},
		{"edn process as a number and a string", "{:process \"p0\", :type :invoke, :f :acquire, :time 1}\n{:process 0, :type :ok, :f :acquire, :time 2}", FormatEDN, 2, "process p0 is a number here but a string on line 1"},
		{"token differs", `{"process":"c1","type":"invoke","f":"write","key":"d","value":"v","token":5,"time":10}` + "\n" + `{"process":"c1","type":"ok","f":"write","key":"d","value":"v","token":3,"time":20}`, FormatJSONL, 2, "gives token 3, its invoke (line 1) token 5"},
		{"edn token differs", "{:process 0, :type :invoke, :f :write, :key \"d\", :token 5, :time 1}\n{:process 0, :type :ok, :f :write, :key \"d\", :token \"3\", :time 2}", FormatEDN, 2, "gives token 3, its invoke (line 1) token 5"},
		{"key differs", good + `{"process":"c1","type":"invoke","f":"release","key":"k","time":30}` + "\n" + `{"process":"c1","type":"ok","f":"release","key":"k2","time":40}`, FormatJSONL, 4, `names key "k2", its invoke (line 3) key "k"`},
		{"fractional process", `{"process":1.5,"type":"invoke","f":"acquire","key":"k","time":1}`, FormatJSONL, 1, "process: a non-empty string or an integer"},
		{"exponent process", `{"process":1e3,"type":"invoke","f":"acquire","key":"k","time":1}`, FormatJSONL, 1, "process: a non-empty string or an integer"},
		{"negative time", `{"process":1,"type":"invoke","f":"acquire","key":"k","time":-5}`, FormatJSONL, 1, "time: -5 is negative"},
		{"repeated time", `{"process":1,"type":"invoke","f":"acquire","key":"k","time":5,"time":1}`, FormatJSONL, 1, `field "time" is given twice`},
		{"repeated time, other case", `{"process":1,"type":"invoke","f":"acquire","key":"k","time":5,"Time":1}`, FormatJSONL, 1, `field "time" is given twice`},
		{"array", "[1,2,3]", FormatJSONL, 1, `not a JSON object: each line is one event, {"process"`},
		{"wrong type", `{"process":1,"type":"invoke","f":"acquire","key":7,"time":5}`, FormatJSONL, 1, "key: a string is required, not a number"},
		{"edn as json", "{:index 0, :time 1000, :type :invoke, :process 0, :f :acquire, :value nil}", FormatJSONL, 1, "read it with --format edn"},
		{"edn vector as json", "[{:index 0, :time 1000, :type :invoke, :process 0, :f :acquire, :value nil}", FormatJSONL, 1, "read it with --format edn"},
		{"utf-16", "\xff\xfe{\x00", FormatJSONL, 1, "UTF-16"},
		{"edn time backwards", "{:process 0, :type :invoke, :f :acquire, :time 5}\n{:process 0, :type :ok, :f :acquire, :time 4}", FormatEDN, 2, "backwards"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.text), tc.format)
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if he.Line != tc.line || !strings.Contains(he.Msg, tc.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "recorded.") {
				t.Fatalf("err = %q (line %d), want line %d and %q", err, he.Line, tc.line, tc.want)
			}
		})
	}
}

// TestGroupsCheckLikeTheWhole: a history of many groups of keys, checked
// group by group, gets the report of the whole history checked as one
// trace: the same verdict, violations, damage and checks.
func TestGroupsCheckLikeTheWhole(t *testing.T) {
	var buf bytes.Buffer
	g := generated{events: 30_000, keys: 20, procs: 5, doubleEvery: 700}
	if err := g.write(&buf); err != nil {
		t.Fatal(err)
	}
	// Two more groups: the paused holder of pausedJSONL (a premature
	// expiry and a stale write), once as written and once renamed.
	buf.WriteString(pausedJSONL)
	buf.WriteString(strings.NewReplacer(`"c1"`, `"d1"`, `"c2"`, `"d2"`, `"reader"`, `"reader2"`, `"L"`, `"L2"`, `"list"`, `"list2"`).Replace(pausedJSONL))
	// Spooled to a file beyond 64 KB, read back 32 KB at a time.
	h, err := readLines(&buf, parseJSONLine, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.pass = 32 << 10
	if h.spool.file == nil {
		t.Fatal("the history's operations are not in a file")
	}
	if gs, _ := h.groups(); len(gs) != g.keys+2 {
		t.Fatalf("%d groups, want %d", len(gs), g.keys+2)
	}
	whole, err := CheckWhole(h, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := Check(h, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	w, p := whole.File.Report, parts.File.Report
	if p.Verdict != checker.VerdictViolation || p.Damage.StaleWritesAccepted != 2 || mutexViolations(&p) != g.doubles()+2 {
		t.Fatalf("checked by group: verdict %s, damage %+v, %d mutual-exclusion violations, want %d and 2 stale writes",
			p.Verdict, p.Damage, mutexViolations(&p), g.doubles()+2)
	}
	for i := range w.Violations {
		w.Violations[i].Events = nil // cited in the whole trace only
	}
	if !reflect.DeepEqual(w, p) {
		t.Fatalf("checked by group:\n%+v\nchecked whole:\n%+v", p, w)
	}
	if parts.File.Trace.Stats != whole.File.Trace.Stats {
		t.Fatalf("stats by group %+v, whole %+v", parts.File.Trace.Stats, whole.File.Trace.Stats)
	}
}

// TestCloseRemovesTheSpool: a history spooled to a file leaves none
// behind once closed.
func TestCloseRemovesTheSpool(t *testing.T) {
	var buf bytes.Buffer
	if err := (generated{events: 6_000, keys: 3, procs: 2}).write(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := readLines(&buf, parseJSONLine, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if h.spool.file == nil {
		t.Fatal("not spooled to a file")
	}
	name := h.spool.file.Name()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("%s after Close: %v", name, err)
	}
}

// fencedHistory is a's write with token ta, then, once a has released
// the lock, b's write with token tb (tokens as written in the format).
func fencedHistory(format, ta, tb string) string {
	if format == FormatEDN {
		var b strings.Builder
		for _, l := range []struct{ p, ty, f, key, tok string }{
			{"0", "invoke", "acquire", "lock", ""}, {"0", "ok", "acquire", "lock", ""},
			{"0", "invoke", "write", "d", ta}, {"0", "ok", "write", "d", ta},
			{"0", "invoke", "release", "lock", ""}, {"0", "ok", "release", "lock", ""},
			{"1", "invoke", "acquire", "lock", ""}, {"1", "ok", "acquire", "lock", ""},
			{"1", "invoke", "write", "d", tb}, {"1", "ok", "write", "d", tb},
		} {
			tok := ""
			if l.f == "write" {
				tok = ", :token " + l.tok
			}
			b.WriteString(`{:process ` + l.p + `, :type :` + l.ty + `, :f :` + l.f + `, :key "` + l.key + `"` + tok + `, :time ` + strconv.Itoa(b.Len()) + "}\n")
		}
		return b.String()
	}
	var b strings.Builder
	ev := func(p, ty, f, key, extra string, ms int) {
		b.WriteString(`{"process":"` + p + `","type":"` + ty + `","f":"` + f + `","key":"` + key + `"` + extra + `,"time":` + strconv.Itoa(ms*1e6) + "}\n")
	}
	ev("a", "invoke", "acquire", "lock", "", 0)
	ev("a", "ok", "acquire", "lock", `,"value":"ta","lease_ms":1000`, 1)
	ev("a", "invoke", "write", "d", `,"value":"va","token":`+ta, 10)
	ev("a", "ok", "write", "d", `,"value":"va","token":`+ta, 11)
	ev("a", "invoke", "release", "lock", `,"value":"ta"`, 20)
	ev("a", "ok", "release", "lock", `,"value":"ta"`, 21)
	ev("b", "invoke", "acquire", "lock", "", 30)
	ev("b", "ok", "acquire", "lock", `,"value":"tb","lease_ms":1000`, 31)
	ev("b", "invoke", "write", "d", `,"value":"vb","token":`+tb, 40)
	ev("b", "ok", "write", "d", `,"value":"vb","token":`+tb, 41)
	return b.String()
}

// A write's token is compared as an integer or refused: a lower token
// accepted after a higher one is a violation whatever the spelling of
// the integers, and a token the checker cannot order (a fraction, an
// exponent, beyond int64, null, text) stops the check at its line
// instead of leaving the write out of the fenced register.
func TestFencingTokensComparedOrRefused(t *testing.T) {
	for _, tc := range []struct{ format, ta, tb string }{
		{FormatJSONL, "2", "1"},
		{FormatJSONL, `"2"`, `"1"`},
		{FormatJSONL, `"10"`, `"9"`},
		{FormatJSONL, "9223372036854775807", "-9223372036854775808"},
		{FormatJSONL, `"007"`, "6"},
		{FormatEDN, "2", "1"},
		{FormatEDN, `"10"`, "9N"},
	} {
		h, err := Read(strings.NewReader(fencedHistory(tc.format, tc.ta, tc.tb)), tc.format)
		if err != nil {
			t.Fatalf("%s %s->%s: %v", tc.format, tc.ta, tc.tb, err)
		}
		o, err := Check(h, "h")
		if err != nil {
			t.Fatal(err)
		}
		if r := o.File.Report; r.Verdict != checker.VerdictViolation || len(r.Violations) == 0 || r.Violations[0].Property != checker.PropDamage {
			t.Errorf("%s %s->%s: the fence regression is not found: %+v", tc.format, tc.ta, tc.tb, r)
		}
	}
	for _, tc := range []struct{ format, ta, tb, want string }{
		{FormatJSONL, "2.5", "1.5", "token 2.5 is not an integer"},
		{FormatJSONL, "1e30", "1", "token 1e30 is not an integer"},
		{FormatJSONL, "18446744073709551615", "1", "token 18446744073709551615 is out of range"},
		{FormatJSONL, "null", "null", "token null is not an integer"},
		{FormatJSONL, `"abc"`, `"abb"`, "token abc is not an integer"},
		{FormatJSONL, "true", "false", "token true is not an integer"},
		{FormatEDN, "2.5", "1.5", ":token 2.5 is not an integer"},
		{FormatEDN, "nil", "nil", ":token nil is not an integer"},
		{FormatEDN, "18446744073709551615N", "1", ":token 18446744073709551615 is out of range"},
	} {
		_, err := Read(strings.NewReader(fencedHistory(tc.format, tc.ta, tc.tb)), tc.format)
		var he *Error
		if !errors.As(err, &he) || he.Line != 3 || !strings.Contains(he.Msg, tc.want) || !strings.Contains(he.Msg, "9223372036854775807") {
			t.Errorf("%s %s->%s: err = %v, want line 3: %q and what a token must be", tc.format, tc.ta, tc.tb, err, tc.want)
		}
	}
}

// A UTF-8 byte-order mark before the first event, as PowerShell and
// some Jepsen tooling write, is not part of it.
func TestByteOrderMarkSkipped(t *testing.T) {
	for _, tc := range []struct{ format, text string }{
		{FormatJSONL, `{"process":"c1","type":"invoke","f":"acquire","key":"k","time":10}` + "\n" + `{"process":"c1","type":"ok","f":"acquire","key":"k","time":20}` + "\n"},
		{FormatEDN, "{:process 0, :type :invoke, :f :acquire, :time 10}\n{:process 0, :type :ok, :f :acquire, :time 20}\n"},
		{FormatEDN, "[{:process 0, :type :invoke, :f :acquire, :time 10}\n{:process 0, :type :ok, :f :acquire, :time 20}]\n"},
	} {
		h, err := Read(strings.NewReader("\xef\xbb\xbf"+tc.text), tc.format)
		if err != nil {
			t.Fatalf("%s with a BOM: %v", tc.format, err)
		}
		if h.Events() != 2 {
			t.Fatalf("%s with a BOM: %d events, want 2", tc.format, h.Events())
		}
		h.Close()
	}
}
