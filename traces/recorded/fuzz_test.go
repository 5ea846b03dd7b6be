package recorded

import (
	"bytes"
	"errors"
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
		if _, err := Check(h, "fuzz"); err != nil {
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("check error %v is no *Error", err)
			}
		}
	})
}
