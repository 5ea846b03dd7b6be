package checker

import (
	"os/exec"
	"strings"
	"testing"
)

// goList runs `go list` from the module; the test needs the go command,
// which every machine that builds locksim has.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestCheckerLinksNoSimulator keeps the checker readable without the
// simulator: it sees traces through sim/trace only.
func TestCheckerLinksNoSimulator(t *testing.T) {
	for _, dep := range goList(t, "-deps", ".") {
		if strings.Contains(dep, "miniredis") || strings.Contains(dep, "gopher-lua") ||
			dep == "github.com/locksim/locksim/sim" {
			t.Errorf("checker depends on %s", dep)
		}
	}
}

// TestNothingImportsTheFidelitySuite: the conformance suite is tests only.
func TestNothingImportsTheFidelitySuite(t *testing.T) {
	for _, line := range goList(t, "-f", "{{.ImportPath}}: {{.Imports}}", "github.com/locksim/locksim/...") {
		if strings.Contains(line, "locksim/sim/fidelity") && !strings.HasPrefix(line, "github.com/locksim/locksim/sim/fidelity") {
			t.Errorf("imports the fidelity suite: %s", line)
		}
	}
}
