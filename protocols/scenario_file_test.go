package protocols

import (
	"encoding/json"
	"strings"
	"testing"
)

// A normalized scenario written as JSON parses back to itself.
func TestParseScenarioRoundTrip(t *testing.T) {
	sc, err := Scenario{Seed: 7, Protocol: "redisson", Workload: "stock", FaultKinds: []string{"gc-pause", "failover"}, Topology: TopoReplicated}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseScenario(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	once, _ := json.Marshal(sc)
	if string(again) != string(once) {
		t.Fatalf("read back\n%s\nwrote\n%s", again, once)
	}
}

// Each misspelling fails with one line naming the field and the name the
// user meant.
func TestParseScenarioNamesTheFieldAndSuggests(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"protocol":"redisson","clinets":3}`, `scenario field "clinets" is unknown (did you mean "clients"?)`},
		{`{"protocol":"redisson","network":{"los_rate":0.1}}`, `scenario field "network.los_rate" is unknown (did you mean "loss_rate"?)`},
		{`{"protocol":"redisson","faults":[{"kind":"gc-pause","targt":"c1"}]}`, `scenario field "faults[0].targt" is unknown (did you mean "target"?)`},
		{`{"protocol":"redison"}`, `scenario field "protocol": unknown protocol "redison" (did you mean "redisson"?)`},
		{`{"protocol":"redisson","workload":"stok"}`, `scenario field "workload": unknown workload "stok" (did you mean "stock"?)`},
		{`{"protocol":"redisson","topology":"replicatd"}`, `scenario field "topology": unknown topology "replicatd" (did you mean "replicated"?)`},
		{`{"protocol":"redisson","fault_kinds":["gc-pause","failovr"]}`, `scenario field "fault_kinds[1]": unknown fault kind "failovr" (did you mean "failover"?)`},
		{`{"protocol":"redisson","faults":[{"kind":"gc-paus","target":"c1"}]}`, `scenario field "faults[0].kind": unknown fault kind "gc-paus" (did you mean "gc-pause"?)`},
		{`{"protocol":"redisson","persistence":"everysecond"}`, `scenario field "persistence": unknown persistence "everysecond" (did you mean "everysec"?)`},
		{`{"protocol":"redisson","arrival":"opn"}`, `scenario field "arrival": unknown arrival "opn" (did you mean "open"?)`},
	} {
		_, err := ParseScenario([]byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.want)
		}
	}
	for _, bad := range []string{`[]`, `{"protocol":"redisson"} {}`, `{"protocol":"redisson","clients":"3"}`, `{`} {
		_, err := ParseScenario([]byte(bad))
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}

// FuzzParseScenario: any bytes give a scenario or a one-line error, and a
// scenario it accepts writes back to a file it accepts again.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(`{"protocol":"redisson","clients":3,"faults":[{"kind":"gc-pause","target":"c1","at_ms":1,"dur_ms":2}]}`))
	f.Add([]byte(`{"protocol":"redison","network":{"los_rate":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := ParseScenario(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		out, err := json.Marshal(sc)
		if err != nil {
			return // a value json reads but cannot write (NaN cannot occur: json has none)
		}
		if _, err := ParseScenario(out); err != nil {
			t.Fatalf("accepted %s, refused its own rewrite %s: %v", b, out, err)
		}
	})
}
