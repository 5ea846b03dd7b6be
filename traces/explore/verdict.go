package explore

import (
	"fmt"
	"math"
	"strings"
)

// A Verdict is what one command says about one protocol under one fault
// kind, with its evidence and its scope, in the one vocabulary explore,
// matrix and verify share (Text writes it; nothing else does):
//
//	unsafe: k of n runs (rate, 95% interval lo-hi), first seed s
//	not found in n runs: rate < x at 95%
//	verified: every single <kind> fault at every step, within <bound>
//
// and, around them, n/a, data loss, inconclusive, error, and the
// exhaustive search's unsafe (a placement, not a rate).
//
// The statistics, chosen once: a sampled rate's 95% interval is the
// Wilson score interval (two-sided, z = 1.96), which stays inside [0, 1]
// and is sound for the small counts these cells have; "not found in n
// runs" bounds the rate by the exact one-sided 95% bound for zero
// failures, 1 - 0.05^(1/n) (Clopper-Pearson's for k = 0, about 3/n: the
// rule of three). Both assume the runs independent draws of one
// scenario distribution: seeds of one generator.
//
// Both are over the judged runs only. A run is not judged when its
// checker's verdict is unknown and its ground truth shows no harm: a run
// budget stopped it (the event budget, the horizon) or the checker ran
// out of search steps. Such a run is evidence of nothing, so it is left
// out of the rate's numerator and denominator and counted apart, with
// why. As Jepsen's checkers compose (false over unknown over true), a
// verdict with an unsafe run is unsafe, and one with none but a run not
// judged is inconclusive; with no run judged it claims no rate at all.
type Verdict struct {
	// Verdict is one of the Verdict* constants.
	Verdict string `json:"verdict"`
	// Method is "sampled" (explore, matrix: seeds of the generator) or
	// "exhaustive" (verify: every placement within a bound).
	Method string `json:"method"`
	// Runs: sampled, the runs judged (those the rate is over); exhaustive,
	// the placements run.
	Runs   int `json:"runs"`
	Unsafe int `json:"unsafe"` // sampled: runs judged unsafe
	// Rate, Low and High: the unsafe runs' share and its 95% interval.
	Rate float64 `json:"rate"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Below: with no unsafe run, the rate ruled out at 95%.
	Below     float64 `json:"below,omitempty"`
	FirstSeed *uint64 `json:"first_seed,omitempty"`
	DataLoss  int     `json:"data_loss,omitempty"` // sampled: runs where only the data store lost writes
	// Unknown counts the runs not judged: sampled, besides Runs;
	// exhaustive, of them. UnknownWhy says why, as "n reason; m reason".
	Unknown    int    `json:"unknown,omitempty"`
	UnknownWhy string `json:"unknown_why,omitempty"`
	Fault      string `json:"fault,omitempty"`
	Depth      int    `json:"depth,omitempty"` // exhaustive: the most faults a placement holds
	// PairsRun and Pairs: with depth 2, the two-fault placements tried
	// and those there are; fewer tried when the cell's pair budget
	// (PairBudget) cut them, and then no claim is made for two faults.
	PairsRun   int `json:"pairs_run,omitempty"`
	Pairs      int `json:"pairs,omitempty"`
	PairBudget int `json:"pair_budget,omitempty"`
	// Bound is an exhaustive verdict's scope; Found, the placement that
	// broke it.
	Bound string `json:"bound,omitempty"`
	Found string `json:"found,omitempty"`
	Why   string `json:"why,omitempty"` // n/a's reason, an error, a cause
	Text  string `json:"text"`
}

// Verdicts. A cell is unsafe in every command that found a run breaking
// it; "not found" and "verified" are the two ways of not finding one,
// each with its scope.
const (
	VerdictUnsafe        = "unsafe"
	VerdictNotFound      = "not-found"
	VerdictVerified      = "verified"
	VerdictUnsafeNoFault = "unsafe-no-fault"
	VerdictDataLoss      = "data-loss"
	VerdictUnknown       = "inconclusive"
	VerdictNA            = "n/a"
	VerdictError         = "error"
)

// sampled is the verdict of seeded runs of one generator: judged runs
// judged, unsafe of them judged unsafe (the first at seed first),
// dataLoss where only the data store lost writes; unknown more runs not
// judged, for the reasons why.
func sampled(judged, unsafe, dataLoss, unknown int, why string, first *uint64) Verdict {
	v := Verdict{Method: "sampled", Runs: judged, Unsafe: unsafe, DataLoss: dataLoss, Unknown: unknown, UnknownWhy: why,
		FirstSeed: first}
	v.Rate, v.Low, v.High = wilson95(unsafe, judged)
	switch {
	case unsafe > 0:
		v.Verdict = VerdictUnsafe
	case unknown > 0 || judged == 0:
		v.Verdict = VerdictUnknown
	case dataLoss > 0:
		v.Verdict = VerdictDataLoss
	default:
		v.Verdict = VerdictNotFound
	}
	if unsafe == 0 && judged > 0 {
		v.Below = upperBound95(judged)
	}
	v.Text = v.text()
	return v
}

// notApplicable is the verdict of a cell whose fault means nothing where
// the protocol runs.
func notApplicable(why string) Verdict {
	v := Verdict{Verdict: VerdictNA, Why: why}
	v.Text = v.text()
	return v
}

// failed is the verdict of a cell whose runs could not be built or run.
func failed(method, why string) Verdict {
	v := Verdict{Verdict: VerdictError, Method: method, Why: why}
	v.Text = v.text()
	return v
}

// exhaustive is verify's verdict on fault kind within bound after the
// placements t of up to depth faults: found names the placement that
// broke it ("" if none did). With none found, a placement not judged
// makes it inconclusive.
func exhaustive(kind string, depth int, bound string, t tried, found, cause string) Verdict {
	v := Verdict{Verdict: VerdictVerified, Method: "exhaustive", Runs: t.runs, Unknown: t.unknown, UnknownWhy: t.why, Fault: kind,
		Depth: depth, Bound: bound, Found: found, Why: cause}
	if depth == 2 {
		v.PairsRun, v.Pairs, v.PairBudget = t.pairs.run, t.pairs.total, t.pairs.budget
	}
	switch {
	case found != "":
		v.Verdict, v.Unsafe = VerdictUnsafe, 1
	case t.unknown > 0:
		v.Verdict = VerdictUnknown
	}
	v.Text = v.text()
	return v
}

// tried is what an exhaustive search ran: runs placements, unknown of
// them not judged (why says why, as whyText), its two-fault placements.
type tried struct {
	runs, unknown int
	why           string
	pairs         pairCount
}

// pairCount is how many two-fault placements a cell has, how many it
// tried and the budget that capped them.
type pairCount struct{ run, total, budget int }

// unsafeWithoutFault is verify's verdict on a cell whose fault-free run
// already fails.
func unsafeWithoutFault(bound, cause string) Verdict {
	v := Verdict{Verdict: VerdictUnsafeNoFault, Method: "exhaustive", Bound: bound, Why: cause}
	v.Text = v.text()
	return v
}

// text is the verdict's one line.
func (v Verdict) text() string {
	switch {
	case v.Verdict == VerdictNA:
		return "n/a: " + v.Why
	case v.Verdict == VerdictError:
		return "error: " + v.Why
	case v.Verdict == VerdictUnsafeNoFault:
		return fmt.Sprintf("unsafe without any fault (%s), within %s", v.Why, v.Bound)
	case v.Method == "exhaustive" && v.Verdict == VerdictUnsafe:
		return fmt.Sprintf("unsafe: %s breaks it (%s); found trying %s, within %s (placement %s)",
			v.Found, v.Why, v.placements(), v.Bound, Thousands(v.Runs))
	case v.Method == "exhaustive" && v.Verdict == VerdictUnknown && v.Runs == 0:
		return fmt.Sprintf("inconclusive: the fault-free run within %s was not judged: %s, so nothing is verified", v.Bound, v.UnknownWhy)
	case v.Method == "exhaustive" && v.Verdict == VerdictUnknown:
		judged := fmt.Sprintf("none of the %s judged broke it", Thousands(v.Runs-v.Unknown))
		if v.Runs == v.Unknown {
			judged = "none was judged"
		}
		return fmt.Sprintf("inconclusive: trying %s, within %s (%s), %s; not judged: %s%s, so this is not verified",
			v.placements(), v.Bound, Plural(v.Runs, "placement"), judged, v.UnknownWhy, v.notTried())
	case v.Method == "exhaustive" && v.cut():
		return fmt.Sprintf("verified: %s, within %s (%s)%s, so this is not verified up to 2 faults",
			v.placements(), v.Bound, Plural(v.Runs, "placement"), v.notTried())
	case v.Method == "exhaustive":
		return fmt.Sprintf("verified: %s, within %s (%s)", v.placements(), v.Bound, Plural(v.Runs, "placement"))
	}
	return v.sampledText() + v.notJudged()
}

// sampledText is a sampled verdict's line but for the runs not judged.
func (v Verdict) sampledText() string {
	judged := runsOf(v.Runs)
	if v.Unknown > 0 {
		judged = strings.Replace(judged, "run", "judged run", 1)
	}
	notFound := fmt.Sprintf("not found in %s: rate < %s at 95%%", judged, percent(v.Below))
	switch {
	case v.Verdict == VerdictUnsafe:
		seed := ""
		if v.FirstSeed != nil {
			seed = fmt.Sprintf(", first seed %d", *v.FirstSeed)
		}
		return fmt.Sprintf("unsafe: %s of %s (%s, 95%% interval %s-%s)%s",
			Thousands(v.Unsafe), judged, percent(v.Rate), percent(v.Low), percent(v.High), seed)
	case v.Runs == 0:
		return fmt.Sprintf("inconclusive: none of %s judged, so no rate is claimed", runsOf(v.Unknown))
	case v.DataLoss > 0:
		lost := v.DataLoss
		notFound = fmt.Sprintf("%s; the data store lost writes in %s of them (%s), which no lock prevents", notFound, Thousands(lost),
			percent(float64(lost)/float64(v.Runs)))
	}
	if v.Verdict == VerdictUnknown {
		return "inconclusive: " + notFound
	}
	return notFound
}

// notJudged says how many runs were not judged and why, if any were.
func (v Verdict) notJudged() string {
	if v.Unknown == 0 {
		return ""
	}
	if v.Runs == 0 {
		return ": " + v.UnknownWhy
	}
	return fmt.Sprintf("; %s of %s not judged: %s", Thousands(v.Unknown), runsOf(v.Runs+v.Unknown), v.UnknownWhy)
}

// cut reports whether a depth-2 search left two-fault placements out.
func (v Verdict) cut() bool { return v.Depth == 2 && v.PairsRun < v.Pairs }

// notTried says which two-fault placements a cut search left out.
func (v Verdict) notTried() string {
	if !v.cut() {
		return ""
	}
	return fmt.Sprintf("; not tried: the other %s two-fault placements", Thousands(v.Pairs-v.PairsRun))
}

// placements says what an exhaustive search placed.
func (v Verdict) placements() string {
	if v.cut() {
		return fmt.Sprintf("every single %s fault at every step, and %s of the %s two-fault placements (each single fault with a "+
			"standing split, then two within a lease, in step order: the first of each point's, a budget of %s a cell shared "+
			"evenly by its points)", v.Fault, Thousands(v.PairsRun), Thousands(v.Pairs), Thousands(v.PairBudget))
	}
	if v.Depth == 2 {
		return fmt.Sprintf("every single %s fault at every step, alone, with a standing split and with a second within a lease", v.Fault)
	}
	return fmt.Sprintf("every single %s fault at every step", v.Fault)
}

// Label is the verdict in a table cell: "unsafe 11/2000 @71",
// "<0.15%", "verified", "n/a"; with runs not judged, how many.
func (v Verdict) Label() string {
	s := v.Verdict
	switch {
	case v.Method == "exhaustive" && v.Verdict == VerdictUnsafe:
		return "unsafe (exhaustive)"
	case v.Verdict == VerdictUnsafe:
		s = fmt.Sprintf("unsafe %d/%d @%d", v.Unsafe, v.Runs, *v.FirstSeed)
	case v.Verdict == VerdictUnknown && v.Runs == 0:
		return fmt.Sprintf("inconclusive (%d not judged)", v.Unknown)
	case v.Verdict == VerdictUnknown, v.Verdict == VerdictNotFound, v.Verdict == VerdictDataLoss:
		s = "<" + percent(v.Below)
		if v.DataLoss > 0 {
			s += ", data-loss " + percent(float64(v.DataLoss)/float64(v.Runs))
		}
	}
	if v.Unknown > 0 {
		s += fmt.Sprintf(", %d not judged", v.Unknown)
	}
	return s
}

func runsOf(n int) string {
	if n == 1 {
		return "1 run"
	}
	return Thousands(n) + " runs"
}

// Thousands writes n with a comma between thousands: 20,000.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// percent writes a share with two significant digits: 30%, 1.5%, 0.15%.
func percent(r float64) string {
	p := 100 * r
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return fmt.Sprintf("%.0f%%", p)
	case p >= 1:
		return fmt.Sprintf("%.1f%%", p)
	case p >= 0.1:
		return fmt.Sprintf("%.2f%%", p)
	case p >= 0.01:
		return fmt.Sprintf("%.3f%%", p)
	}
	return fmt.Sprintf("%.2g%%", p)
}

// upperBound95 is the highest violating rate that still leaves a 5 %
// chance of seeing no violation in n independent runs: 1 - 0.05^(1/n),
// about 3/n (the rule of three).
func upperBound95(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 1 - math.Pow(0.05, 1/float64(n))
}

// wilson95 is k of n as a rate and its Wilson score interval at 95%.
func wilson95(k, n int) (rate, low, high float64) {
	if n <= 0 {
		return 0, 0, 1
	}
	const z = 1.959963984540054
	nf := float64(n)
	p := float64(k) / nf
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return p, max(0, mid-half), min(1, mid+half)
}
