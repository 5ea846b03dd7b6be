package checker

import (
	"reflect"
	"testing"
)

// TestMergeReports: the merged report ranks the parts' violations as
// Check does, sums every damage count and each model's operations, and
// keeps each model's worst result.
func TestMergeReports(t *testing.T) {
	var one Damage
	v := reflect.ValueOf(&one).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(i + 1))
	}
	a := Report{Verdict: VerdictViolation, Damage: one, Checked: []Checked{
		{Property: PropMutex, Model: "mutex", Operations: 3, Result: VerdictOK},
		{Property: PropDamage, Model: "fenced-register", Operations: 2, Result: VerdictUnknown, Unknown: "budget"}},
		Violations: []Violation{{Property: PropOwnership, Cause: CauseForeignRelease, AtMs: 5}}}
	b := Report{Verdict: VerdictViolation, Damage: one, Checked: []Checked{
		{Property: PropMutex, Model: "mutex", Operations: 4, Result: VerdictViolation}},
		Violations: []Violation{{Property: PropMutex, Cause: CausePrematureExpiry, AtMs: 1}}}
	m := MergeReports([]Report{a, b})
	d := reflect.ValueOf(m.Damage)
	for i := range d.NumField() {
		if got := d.Field(i).Int(); got != int64(2*(i+1)) {
			t.Errorf("damage %s = %d, want %d", d.Type().Field(i).Name, got, 2*(i+1))
		}
	}
	want := []Checked{
		{Property: PropMutex, Model: "mutex", Operations: 7, Result: VerdictViolation},
		{Property: PropDamage, Model: "fenced-register", Operations: 2, Result: VerdictUnknown, Unknown: "budget"}}
	if m.Verdict != VerdictViolation || !reflect.DeepEqual(m.Checked, want) {
		t.Fatalf("merged %+v", m)
	}
	ranked := append(append([]Violation{}, a.Violations...), b.Violations...)
	rankByCausality(ranked)
	if !reflect.DeepEqual(m.Violations, ranked) {
		t.Fatalf("violations %+v, want %+v", m.Violations, ranked)
	}
	a.Violations, a.Verdict = nil, VerdictUnknown
	if r := MergeReports([]Report{a, {Verdict: VerdictOK}}); r.Verdict != VerdictUnknown {
		t.Fatalf("an unknown part and an ok one: verdict %s", r.Verdict)
	}
}
