package recorded

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzReadHistory: any input is a history that checks, or one *Error;
// never a panic.
func FuzzReadHistory(f *testing.F) {
	f.Add([]byte(pausedJSONL), false)
	f.Add([]byte(doubleGrantEDN), true)
	f.Add([]byte(`{"process":1,"type":"invoke","f":"renew","key":"k","time":-5,"lease_ms":1}`+"\n"+
		`{"process":1,"type":"info","f":"renew","key":"k","time":9223372036854775807}`), false)
	f.Fuzz(func(t *testing.T, data []byte, edn bool) {
		format := FormatJSONL
		if edn {
			format = FormatEDN
		}
		h, err := Read(bytes.NewReader(data), format)
		if err != nil {
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("error %v is no *Error", err)
			}
			return
		}
		defer h.Close()
		if _, err := Check(h, "fuzz"); err != nil {
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("check error %v is no *Error", err)
			}
		}
	})
}

// FuzzDecodeFlat: whatever line decodeFlat reads, json.Unmarshal reads
// too, to the same fields.
func FuzzDecodeFlat(f *testing.F) {
	for _, l := range strings.Split(pausedJSONL, "\n") {
		f.Add([]byte(l))
	}
	for _, l := range []string{
		`{"process":1,"type":"invoke","f":"renew","key":"k","time":-5,"lease_ms":1.5e3,"token":null}`,
		`{"Process":"a","TYPE":"ok","f":"read","key":"k","value":true,"time":0}`,
		`{"process":"a","process":"b","type":"ok","f":"read","key":"k","time":0}`,
		`{"process":"a\u00e9","type":"ok","f":"read","key":"ké","value":"\"q\"","time":01}`,
		`{"process":"a","type":5,"f":"read","key":"k","time":0,"error":{"x":[1]}} `,
		`{"process":"a","type":"ok","f":"read","key":"k","time":0,"ſ":1,"error":"\xff"}`,
		`{}`, ` { "process" : "a" , "time" : 1 } `, `{"process":"a",}`, `{"time":-0.0E+1}`, `{"time":-}`,
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast jsonEvent
		if !decodeFlat(line, &fast) {
			return
		}
		var slow jsonEvent
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("decodeFlat read %q, json.Unmarshal: %v", line, err)
		}
		str := func(p *string) string {
			if p == nil {
				return "<nil>"
			}
			return "=" + *p
		}
		for _, c := range [][2]string{
			{string(fast.Process), string(slow.Process)}, {str(fast.Type), str(slow.Type)}, {str(fast.F), str(slow.F)},
			{str(fast.Key), str(slow.Key)}, {string(fast.Value), string(slow.Value)}, {string(fast.LeaseMs), string(slow.LeaseMs)},
			{string(fast.Token), string(slow.Token)}, {string(fast.Time), string(slow.Time)},
		} {
			if c[0] != c[1] {
				t.Fatalf("%q: decodeFlat read %q, json.Unmarshal %q", line, c[0], c[1])
			}
		}
	})
}
