package explore

import (
	"fmt"
	"strings"
)

// label is a cell as the table shows it; an unsafe cell stopped at its
// first failure (UntilFirst) has no rate.
func (c Cell) label(untilFirst bool) string {
	var s string
	switch {
	case c.Verdict == CellUnsafe && untilFirst:
		s = fmt.Sprintf("unsafe@%d", *c.Seed)
	case c.Verdict == CellUnsafe:
		s = fmt.Sprintf("unsafe@%d %s", *c.Seed, percent(c.Rate()))
	case c.Verdict == CellError:
		s = fmt.Sprintf("error@%d", *c.Seed)
	case c.Verdict == CellDataLoss:
		s = fmt.Sprintf("data-loss %s", percent(float64(c.DataLoss)/float64(c.Runs)))
	case c.Verdict == CellUnknown:
		s = fmt.Sprintf("unknown(%d)", c.Unknown)
	default:
		s = c.Verdict
	}
	if c.Bounded != nil {
		switch c.Bounded.Verdict {
		case CellBounded:
			s += " +"
		case CellUnsafe:
			s += " !"
		}
	}
	return s
}

func percent(r float64) string {
	if r < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*r)
	}
	return fmt.Sprintf("%.0f%%", 100*r)
}

// Text renders the matrix as an aligned table: one row per protocol, one
// column per fault kind, then the legend, the first failure of each
// unsafe cell, and the bounded verdicts that found a breaking fault.
func (m *Matrix) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "safety matrix: workload %s, seeds %d-%d per cell\n", m.Workload, m.FirstSeed, m.FirstSeed+uint64(m.Runs)-1)
	if m.UntilFirst {
		fmt.Fprintf(&b, "unsafe@S = first failing seed S (the cell stops there); safe = none of the %d runs failed (rate < %s at 95%% confidence)\n",
			m.Runs, percent(UpperBound95(m.Runs)))
	} else {
		fmt.Fprintf(&b, "unsafe@S R = first failing seed S, share R of the %d runs that failed; safe = none failed (rate < %s at 95%% confidence)\n",
			m.Runs, percent(UpperBound95(m.Runs)))
	}
	bounded := m.hasBounded()
	b.WriteString("data-loss R = the lock held, but a share R of the runs lost the protected data with a node (no lock prevents that)\n")
	if bounded {
		b.WriteString("+ = no single fault of the kind at any step breaks it either (bound: verify's scope); ! = one does\n")
	}
	b.WriteString("\n")
	m.writeTable(&b)
	var causes, breaks []string
	for _, row := range m.Rows {
		for _, c := range row {
			switch c.Verdict {
			case CellUnsafe:
				causes = append(causes, fmt.Sprintf("  %s / %s (%s), seed %d: %s", c.Protocol, c.Fault, c.Topology, *c.Seed, c.Cause))
			case CellError:
				causes = append(causes, fmt.Sprintf("  %s / %s, seed %d: error: %s", c.Protocol, c.Fault, *c.Seed, c.Detail))
			}
			if c.Bounded != nil && c.Bounded.Verdict == CellUnsafe {
				breaks = append(breaks, fmt.Sprintf("  %s / %s: %s", c.Protocol, c.Fault, c.Bounded.Claim))
			}
		}
	}
	if len(causes) > 0 {
		b.WriteString("\nfirst failures:\n" + strings.Join(causes, "\n") + "\n")
	}
	if len(breaks) > 0 {
		b.WriteString("\nbounded (verify):\n" + strings.Join(breaks, "\n") + "\n")
	}
	return b.String()
}

func (m *Matrix) hasBounded() bool {
	for _, row := range m.Rows {
		for _, c := range row {
			if c.Bounded != nil {
				return true
			}
		}
	}
	return false
}

func (m *Matrix) writeTable(b *strings.Builder) {
	widths := make([]int, len(m.Faults)+1)
	widths[0] = len("protocol")
	for _, p := range m.Protocols {
		widths[0] = max(widths[0], len(p))
	}
	for j, f := range m.Faults {
		widths[j+1] = len(f)
		for _, row := range m.Rows {
			widths[j+1] = max(widths[j+1], len(row[j].label(m.UntilFirst)))
		}
	}
	line := func(cells []string) {
		var l strings.Builder
		for j, s := range cells {
			fmt.Fprintf(&l, "%-*s  ", widths[j], s)
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(append([]string{"protocol"}, m.Faults...))
	for i, row := range m.Rows {
		labels := []string{m.Protocols[i]}
		for _, c := range row {
			labels = append(labels, c.label(m.UntilFirst))
		}
		line(labels)
	}
}
