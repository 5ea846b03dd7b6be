package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/redisproc"
)

// pythonWithRedis finds a python3 that imports redis-py, or "".
func pythonWithRedis() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import redis.lock").Run() == nil {
			return path
		}
	}
	return ""
}

// TestCheckRedisPyHistories runs examples/redispy's recorder, redis-py's
// own Lock against a real redis-server, and checks what it recorded:
// clean without faults, a mutual-exclusion violation (premature expiry)
// with damage when one worker is stopped past its lease by SIGSTOP.
func TestCheckRedisPyHistories(t *testing.T) {
	py := pythonWithRedis()
	if py == "" {
		t.Skip("no python3 with redis-py (apt-get install -y python3-redis): the recorder cannot run")
	}
	srv, err := redisproc.Start(1)
	if err == redisproc.ErrNotFound {
		t.Skip("no redis-server (apt-get install -y redis-server): the recorder needs a real one")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	host, port, _ := strings.Cut(srv.Addr, ":")
	if i := strings.LastIndex(srv.Addr, ":"); i >= 0 {
		host, port = srv.Addr[:i], srv.Addr[i+1:]
	}
	dir := t.TempDir()
	record := func(name string, extra ...string) string {
		out := filepath.Join(dir, name+".jsonl")
		args := append([]string{filepath.Join("..", "..", "examples", "redispy", "record.py"),
			"--host", host, "--port", port, "--workers", "3", "--ops", "3", "--lease-ms", "500", "-o", out}, extra...)
		cmd := exec.Command(py, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("recorder: %v\n%s", err, stderr.String())
		}
		return out
	}
	check := func(hist string, args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"check", hist}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}

	clean := record("clean")
	if code, out := check(clean); code != exitOK || !strings.HasPrefix(out, "OK: ") {
		t.Fatalf("fault-free history: exit %d\n%s", code, out)
	}

	stopped := record("stopped", "--stop-ms", strconv.Itoa(1500))
	page := filepath.Join(dir, "stopped.html")
	code, out := check(stopped, "--html", page)
	if code != exitViolation {
		t.Fatalf("SIGSTOP history: exit %d, want %d\n%s", code, exitViolation, out)
	}
	for _, want := range []string{"mutual exclusion: two clients inside the critical section at once",
		"premature-expiry", "w0 still believed it held the lock", "stale write accepted"} {
		if !strings.Contains(out, want) {
			t.Fatalf("SIGSTOP history: no %q in\n%s", want, out)
		}
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(b, []byte("locksim:redispy")) || !bytes.Contains(b, []byte("<html")) {
		t.Fatalf("HTML timeline: %v (%d bytes)", err, len(b))
	}
	t.Logf("SIGSTOP history checked:\n%s", out)
}

// TestCheckBadHistoryOneLine: each kind of bad history is one line naming
// the file and line, and exit status 2.
func TestCheckBadHistoryOneLine(t *testing.T) {
	dir := t.TempDir()
	good := `{"process":"c1","type":"invoke","f":"acquire","key":"k","time":10}` + "\n" +
		`{"process":"c1","type":"ok","f":"acquire","key":"k","time":20}` + "\n"
	for _, tc := range []struct{ name, text, want string }{
		{"trunc.jsonl", good + `{"process":"c1","type":"inv`, "trunc.jsonl:3: truncated line"},
		{"f.jsonl", good + `{"process":"c1","type":"invoke","f":"cas","key":"k","time":30}`, `f.jsonl:3: unknown f "cas"`},
		{"back.jsonl", good + `{"process":"c1","type":"invoke","f":"release","key":"k","time":15}`, "back.jsonl:3: time goes backwards within process c1"},
		{"orphan.jsonl", good + `{"process":"c2","type":"ok","f":"release","key":"k","time":30}`, "orphan.jsonl:3: ok release of process c2 without a pending invoke"},
		{"bad.edn", "{:process 0, :type :invoke, :f :acquire, :time 1}\n{:process 0 :type :ok", "bad.edn:2: truncated line"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := Main([]string{"check", path}, &out, &errOut)
		msg := errOut.String()
		if code != exitUsage || out.Len() != 0 || strings.Count(msg, "\n") != 1 ||
			!strings.HasPrefix(msg, "locksim check: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.name, code, out.String(), msg, tc.want)
		}
	}
}

// TestCheckFormatsAndFailOn: a .edn file is read as EDN (a double grant:
// exit 1), --format overrides the extension, and --fail-on decides the
// exit status as it does for run.
func TestCheckFormatsAndFailOn(t *testing.T) {
	dir := t.TempDir()
	edn := "{:process 0, :type :invoke, :f :acquire, :time 100}\n{:process 0, :type :ok, :f :acquire, :time 200}\n" +
		"{:process 1, :type :invoke, :f :acquire, :time 300}\n{:process 1, :type :ok, :f :acquire, :time 400}\n"
	path := filepath.Join(dir, "history.edn")
	if err := os.WriteFile(path, []byte(edn), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "history.txt")
	if err := os.WriteFile(other, []byte(edn), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{path}, exitViolation, "mutual exclusion: two clients inside the critical section at once"},
		{[]string{other}, exitUsage, "history.txt:1: not one JSON object"},
		{[]string{"--format", "edn", other}, exitViolation, "p0 acquired lock"},
		{[]string{"--fail-on", "liveness", path}, exitOK, "passes --fail-on liveness"},
		{[]string{"--format", "xml", path}, exitUsage, `--format "xml": want jsonl or edn`},
	} {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"check"}, tc.args...), &out, &errOut)
		if code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.want) {
			t.Errorf("check %v: exit %d, want %d and %q:\n%s%s", tc.args, code, tc.code, tc.want, out.String(), errOut.String())
		}
	}
}

// checkHTML checks a history with a violation, writing its page, and
// returns what check printed and the page.
func checkHTML(t *testing.T, history string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	path, page := filepath.Join(dir, "history.jsonl"), filepath.Join(dir, "history.html")
	if err := os.WriteFile(path, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("check", path, "--html", page)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolation, out, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return out, b
}

// TestCheckTimesFitTheHistory: a history whose events are milliseconds
// apart prints its times in milliseconds, in the text and in the page.
func TestCheckTimesFitTheHistory(t *testing.T) {
	const base = 1_733_390_000_000_000_000
	var sb strings.Builder
	for _, e := range []struct {
		p, typ string
		ms     int64
	}{{"p0", "invoke", 1}, {"p0", "ok", 2}, {"p1", "invoke", 3}, {"p1", "ok", 5}} {
		fmt.Fprintf(&sb, `{"process":%q,"type":%q,"f":"acquire","key":"k","value":null,"time":%d}`+"\n", e.p, e.typ, base+e.ms*1e6)
	}
	out, b := checkHTML(t, sb.String())
	explained := "p0 acquired k at t=0.001 s; server granted the key to p1 at t=0.004 s"
	for _, want := range []string{"p0 and p1, at t=0.004 s\n", explained, "4 events over 0.004 s,"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if !bytes.Contains(b, []byte(explained)) {
		t.Errorf("the page lacks %q", explained)
	}
}

// TestCheckHTMLOfALargeHistory: the page of a history of more than
// recorded.ViewOps operations draws the groups of keys with a violation
// and says what it leaves out.
func TestCheckHTMLOfALargeHistory(t *testing.T) {
	var sb strings.Builder
	emit := func(p int, typ, f string, key, at int) {
		fmt.Fprintf(&sb, `{"process":"p%d","type":%q,"f":%q,"key":"lock:%d","value":null,"lease_ms":5000,"time":%d}`+"\n", p, typ, f, key, at)
	}
	const keys, turns = 200, 130 // 52,000 operations
	for i := range turns {
		for k := range keys {
			at := (i*keys + k) * 1000
			emit(k, "invoke", "acquire", k, at)
			emit(k, "ok", "acquire", k, at+100)
			emit(k, "invoke", "release", k, at+400)
			emit(k, "ok", "release", k, at+500)
		}
	}
	emit(keys, "invoke", "acquire", 7, 25_807_150) // granted while p7 holds lock:7 (its last turn)
	emit(keys, "ok", "acquire", 7, 25_807_200)
	out, b := checkHTML(t, sb.String())
	said := "the timeline draws 1 of the 200 groups of keys (261 of 52001 operations), those with a violation or an unknown result; the other 199 groups are left out of it"
	if !strings.Contains(out, said) || !strings.Contains(out, `double-grant on the lock key "lock:7", p7 and p200`) {
		t.Fatalf("no %q or no double grant in\n%s", said, out)
	}
	if !bytes.Contains(b, []byte(said)) || !bytes.Contains(b, []byte(`"lock:7"`)) || bytes.Contains(b, []byte(`"lock:8"`)) {
		t.Errorf("the page does not draw lock:7 alone and say so (%d bytes)", len(b))
	}
}

// TestCheckEachKeyItsLease: two lock keys with different leases (LA 500
// ms, LB 2000 ms); LB's holder works past its own lease. The explanation
// quotes LB's lease, the header both, and the page's header no single
// lease.
func TestCheckEachKeyItsLease(t *testing.T) {
	ev := func(p, ty, f, key, extra string, ms int64) string {
		return fmt.Sprintf(`{"process":%q,"type":%q,"f":%q,"key":%q%s,"time":%d}`+"\n", p, ty, f, key, extra, ms*1_000_000)
	}
	history := ev("p0", "invoke", "acquire", "LA", "", 0) + ev("p0", "ok", "acquire", "LA", `,"lease_ms":500`, 1) +
		ev("p0", "invoke", "release", "LA", "", 100) + ev("p0", "ok", "release", "LA", "", 101) +
		ev("p1", "invoke", "acquire", "LB", "", 200) + ev("p1", "ok", "acquire", "LB", `,"lease_ms":2000`, 201) +
		ev("p2", "invoke", "acquire", "LB", "", 2300) + ev("p2", "ok", "acquire", "LB", `,"lease_ms":2000`, 2301) +
		ev("p1", "invoke", "write", "D", `,"value":"x"`, 3000) + ev("p1", "ok", "write", "D", `,"value":"x"`, 3001)
	out, page := checkHTML(t, history)
	for _, want := range []string{"3 processes, 5 operations, leases 500 to 2000 ms", "longer than the 2 s lease"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "500 ms lease") || bytes.Contains(page, []byte(`"lease_ms":500`)) {
		t.Errorf("LA's lease quoted for LB:\n%s", out)
	}
}

// TestCheckRefusedHigherToken: on each of nine groups of keys, a storage
// refuses a write whose token is above the one it accepted. Each is a
// violation on its data key naming the client, the time and the tokens
// (not a stale write); check prints the same with --html as without, and
// points past the first eight to what it has.
func TestCheckRefusedHigherToken(t *testing.T) {
	var sb strings.Builder
	for i := range 9 {
		p, lock, data := fmt.Sprintf("p%d", i), fmt.Sprintf("L%d", i), fmt.Sprintf("D%d", i)
		for _, e := range []struct {
			ty, f, key, extra string
			ms                int64
		}{
			{"invoke", "acquire", lock, "", 0}, {"ok", "acquire", lock, `,"lease_ms":10000`, 1},
			{"invoke", "write", data, `,"value":"x","token":5`, 10}, {"ok", "write", data, `,"value":"x","token":5`, 11},
			{"invoke", "write", data, `,"value":"y","token":9`, 20}, {"fail", "write", data, `,"value":"y","token":9`, 21},
		} {
			fmt.Fprintf(&sb, `{"process":%q,"type":%q,"f":%q,"key":%q%s,"time":%d}`+"\n", p, e.ty, e.f, e.key, e.extra, e.ms*1_000_000)
		}
	}
	withPage, page := checkHTML(t, sb.String())
	if n := bytes.Count(page, []byte(`"cause":"unexplained"`)); n != 9 {
		t.Errorf("the page has %d violations, want 9", n)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("check", path)
	if code != exitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	_, pageText, _ := strings.Cut(withPage, "\n") // after "wrote FILE"
	norm := func(s string) string {
		return regexp.MustCompile(`history \S+|checked in \d+ ms`).ReplaceAllString(s, "")
	}
	if norm(pageText) != norm(out) {
		t.Fatalf("check --html printed\n%s\ncheck printed\n%s", pageText, out)
	}
	for _, want := range []string{
		`unexplained on the protected data "D0", p0, at t=0.021 s`,
		"the storage refused p0's write with token 9 (invoked at t=0.020 s, refused at t=0.021 s) although the highest token it had accepted was 5, from p0 at t=0.011 s",
		"... and 1 violation more (--html FILE draws them all)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, `"", ,`) || strings.Contains(out, "stale write") || strings.Contains(out, "--json") {
		t.Errorf("garbled, stale or --json in\n%s", out)
	}
}
