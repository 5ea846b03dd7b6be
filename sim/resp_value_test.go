package sim

import (
	"reflect"
	"testing"

	"github.com/locksim/locksim/sim/luafast"
)

// TestValueReplyIsParsedRESP: a twin's value gives the Reply that parsing
// the RESP miniredis would have written gives.
func TestValueReplyIsParsedRESP(t *testing.T) {
	for _, c := range []struct {
		v    luafast.Value
		resp string
	}{
		{luafast.Value{Kind: 'n'}, "$-1\r\n"},
		{luafast.Value{Kind: ':', Int: -2}, ":-2\r\n"},
		{luafast.Value{Kind: ':', Int: 29998}, ":29998\r\n"},
		{luafast.Value{Kind: '+', Status: "OK"}, "+OK\r\n"},
		{luafast.Value{Kind: '*', Ints: []int{0, 7}}, "*2\r\n:0\r\n:7\r\n"},
		{luafast.Value{Kind: '*', Ints: []int{}}, "*0\r\n"},
	} {
		want, err := ParseReply([]byte(c.resp))
		if err != nil {
			t.Fatal(err)
		}
		if got := valueReply(c.v); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: %+v, parsing %q gives %+v", c.v, got, c.resp, want)
		}
	}
}
