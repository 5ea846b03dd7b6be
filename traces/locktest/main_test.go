package locktest

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// The tests here run properties that are meant to fail: keep rapid's
	// fail files out of testdata.
	if f := flag.Lookup("rapid.nofailfile"); f != nil && os.Getenv("RAPID_NOFAILFILE") == "" {
		f.Value.Set("true")
	}
	code := m.Run()
	if _, err := os.Stat("testdata/rapid"); err == nil {
		fmt.Fprintln(os.Stderr, "rapid wrote fail files under testdata/rapid")
		code = 1
	}
	if _, err := os.Stat("testdata/locksim"); err == nil && os.Getenv("LOCKTEST_README") == "" {
		fmt.Fprintln(os.Stderr, "a test wrote traces under testdata/locksim: tests must use a TraceDir of their own")
		code = 1
	}
	os.Exit(code)
}

// recorder is a TB that records a failure instead of failing the test,
// to run properties that are expected to fail.
type recorder struct {
	*testing.T
	mu     sync.Mutex
	failed bool
	msgs   []string
	logs   []string
}

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	r.T.Logf(format, args...)
}

func newRecorder(t *testing.T) *recorder { return &recorder{T: t} }

// TestingT lets Check run GoRedis locks through a recorder.
func (r *recorder) TestingT() *testing.T { return r.T }

func (r *recorder) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	if msg != "" {
		r.msgs = append(r.msgs, msg)
	}
}

func (r *recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatal(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recorder) FailNow()                          { r.fail("") }
func (r *recorder) Fail()                             { r.fail("") }
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// message is the failure message Check gave, or "".
func (r *recorder) message() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.msgs) == 0 {
		return ""
	}
	return r.msgs[len(r.msgs)-1]
}
