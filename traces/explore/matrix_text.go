package explore

import (
	"fmt"
	"strings"
)

// label is a cell as the table shows it: its verdict's label, with the
// bounded verdict's mark when there is one.
func (c Cell) label() string {
	s := c.Evidence.Label()
	if c.Verdict == CellError && c.Seed != nil {
		s = fmt.Sprintf("error@%d", *c.Seed)
	}
	if c.Bounded != nil {
		switch c.Bounded.Verdict {
		case cellBounded:
			s += " +"
		case CellUnsafe, CellUnsafeNoFault:
			s += " !"
		}
	}
	return s
}

// legend says what the table's cells mean and how each was measured.
func (m *Matrix) legend() []string {
	out := []string{
		fmt.Sprintf("each cell is `locksim explore --protocol P --faults F --workload %s --runs %d --seed-start %d`: the same swarm generator, judged run by run",
			m.Workload, m.Runs, m.FirstSeed),
		"unsafe k/n @S = k of the n judged runs were unsafe, the first at seed S (rate and 95% Wilson interval in --json and below)",
		fmt.Sprintf("<x = not found in the n judged runs (the %d, but those not judged): the unsafe rate is below x at 95%% confidence (1 - 0.05^(1/n)), not that it is 0", m.Runs),
		"data-loss r = no unsafe run, but a share r of the judged runs lost the protected data with a node (no lock prevents that)",
		"u not judged = u runs stopped by a budget or undecided by the checker, left out of the rate: with no unsafe run the cell is inconclusive",
		"n/a = the fault means nothing on the topologies the protocol runs on",
	}
	if m.hasBounded() {
		out = append(out, "+ = verify found no breaking single fault within its bound; ! = verify found one (bounds below)")
	}
	return out
}

// Text renders the matrix as an aligned table: one row per protocol, one
// column per fault kind, then the legend, the evidence of each unsafe
// cell, and the bounded verdicts.
func (m *Matrix) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "safety matrix: workload %s, seeds %d-%d per cell\n", m.Workload, m.FirstSeed, m.FirstSeed+uint64(m.Runs)-1)
	for _, l := range m.legend() {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	m.writeTable(&b)
	var causes, unknown, bounded []string
	for _, row := range m.Rows {
		for _, c := range row {
			switch c.Verdict {
			case CellUnsafe:
				causes = append(causes, fmt.Sprintf("  %s / %s (%s): %s: %s", c.Protocol, c.Fault, c.Topology, c.Evidence.Text, c.Cause))
			case CellError:
				causes = append(causes, fmt.Sprintf("  %s / %s: %s", c.Protocol, c.Fault, c.Evidence.Text))
			case CellUnknown:
				unknown = append(unknown, fmt.Sprintf("  %s / %s (%s): %s", c.Protocol, c.Fault, c.Topology, c.Evidence.Text))
			}
			if c.Bounded != nil && c.Bounded.Verdict != cellNA {
				bounded = append(bounded, fmt.Sprintf("  %s / %s: %s", c.Protocol, c.Fault, c.Bounded.Claim))
				if note := c.scopeNote(); note != "" {
					bounded = append(bounded, "    "+note)
				}
			}
		}
	}
	if len(causes) > 0 {
		b.WriteString("\nunsafe cells:\n" + strings.Join(causes, "\n") + "\n")
	}
	if len(unknown) > 0 {
		b.WriteString("\ninconclusive cells:\n" + strings.Join(unknown, "\n") + "\n")
	}
	if len(bounded) > 0 {
		b.WriteString("\nbounded (verify):\n" + strings.Join(bounded, "\n") + "\n")
	}
	return b.String()
}

// scopeNote says how the scopes differ when the sampled and the bounded
// verdicts of a cell disagree: a seed the generator drew is unsafe while
// no placement within verify's bound breaks the cell.
func (c Cell) scopeNote() string {
	if c.Verdict != CellUnsafe || c.Bounded == nil || c.Bounded.Verdict != cellBounded {
		return ""
	}
	return fmt.Sprintf("scopes differ: seed %d's scenario (drawn by the generator) lies outside verify's bound; replay it: %s",
		*c.Seed, c.Replay)
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
			widths[j+1] = max(widths[j+1], len(row[j].label()))
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
			labels = append(labels, c.label())
		}
		line(labels)
	}
}
