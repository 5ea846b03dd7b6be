package luafast

import (
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestHandleValueMatchesReply runs random sequences of the twins' scripts
// on two nodes, one answered in RESP (Handle) and one in values
// (HandleValue): every value, written as RESP, is the other's reply, and
// values come back for the twins' replies.
func TestHandleValueMatchesReply(t *testing.T) {
	values := 0
	rapid.Check(t, func(rt *rapid.T) {
		resp, val := newNode(rt, true), newNode(rt, true)
		for i, n := 0, rapid.IntRange(10, 60).Draw(rt, "len"); i < n; i++ {
			cmd := genTwinCall(rt)
			if rapid.IntRange(0, 3).Draw(rt, "setup") == 0 {
				cmd = genTwinSetup(rt)
			}
			want := resp.do(cmd...)
			var v Value
			val.buf.Reset()
			if up := strings.ToUpper(cmd[0]); !val.eng.HandleValue(val.peer, up, cmd[1:], &v) {
				val.m.Server().Dispatch(val.peer, cmd)
			}
			val.peer.Flush()
			got := val.buf.String()
			if v.Kind != 0 {
				values++
				if got != "" {
					rt.Fatalf("%q: a value and a written reply %q", cmd, got)
				}
				got = valueRESP(v)
			}
			if got != want {
				rt.Fatalf("%q: reply %q, value path %q (value %+v)", cmd, want, got, v)
			}
		}
		if a, b := resp.state(), val.state(); a != b {
			rt.Fatalf("state differs\nresp:\n%s\nvalue:\n%s", a, b)
		}
	})
	if values == 0 {
		t.Fatal("no script answered with a value")
	}
}

// valueRESP is v as miniredis writes it to a RESP2 peer.
func valueRESP(v Value) string {
	switch v.Kind {
	case ':':
		return ":" + strconv.Itoa(v.Int) + "\r\n"
	case '*':
		s := "*" + strconv.Itoa(len(v.Ints)) + "\r\n"
		for _, n := range v.Ints {
			s += ":" + strconv.Itoa(n) + "\r\n"
		}
		return s
	case '+':
		return "+" + v.Status + "\r\n"
	case 'n':
		return "$-1\r\n"
	}
	return "?"
}
