package report

import (
	"fmt"

	"github.com/locksim/locksim/traces/explore"
)

// chart is the geometry of one inline SVG bar chart, computed here so
// that the template only places what it is given.
type chart struct {
	ID, Title string
	W, H      int
	Left, Top float64 // the plot area's corner
	PlotW     float64
	PlotH     float64
	Grid      []gridLine
	Bars      []bar
	Mark      *mark // a vertical marker (the lease, on the pause chart)
	YTitle    string
	Runs      int // the runs the chart counts
}

type gridLine struct {
	Y     float64
	Label string
}

// bar is one bucket: its full height (Y, H) and, for a histogram, the
// violating part (VY, VH); Top is the text over it, Tip its tooltip.
type bar struct {
	X, W, Y, H, VY, VH float64
	LabelX             float64
	Label, Top, Tip    string
	Empty              bool
}

type mark struct {
	X     float64
	Label string
}

const (
	chartW   = 560
	chartH   = 250
	padLeft  = 48
	padRight = 12
	padTop   = 32
	padBot   = 46
)

func newChart(id, title string) chart {
	return chart{ID: id, Title: title, W: chartW, H: chartH, Left: padLeft, Top: padTop,
		PlotW: chartW - padLeft - padRight, PlotH: chartH - padTop - padBot}
}

// shown trims the empty buckets at both ends (a parameter drawn from a
// narrow range would otherwise be a few bars among blanks).
func shown(bs []explore.Bucket) []explore.Bucket {
	lo, hi := 0, len(bs)
	for lo < hi && bs[lo].Runs == 0 {
		lo++
	}
	for hi > lo && bs[hi-1].Runs == 0 {
		hi--
	}
	return bs[lo:hi]
}

// rateChart plots the violation rate per bucket of p, with the counts
// over each bar.
func rateChart(p explore.Plot, yTitle string) chart {
	c := newChart("plot-"+p.Param, p.Title)
	c.YTitle = yTitle
	for i := 0; i <= 4; i++ {
		c.Grid = append(c.Grid, gridLine{Y: c.Top + c.PlotH*(1-float64(i)/4), Label: fmt.Sprintf("%d%%", i*25)})
	}
	bs := shown(p.Buckets)
	slot := c.PlotW / float64(max(len(bs), 1))
	for i, b := range bs {
		c.Runs += b.Runs
		x := c.Left + slot*float64(i)
		h := c.PlotH * b.Rate()
		br := bar{X: x + (slot-barW(slot))/2, W: barW(slot), Y: c.Top + c.PlotH - h, H: h, LabelX: x + slot/2, Label: b.Label}
		switch {
		case b.Runs == 0:
			br.Empty, br.Top = true, "no runs"
			br.Tip = fmt.Sprintf("%s: no runs", b.Label)
		default:
			br.Top = fmt.Sprintf("%d/%d", b.Violating, b.Runs)
			br.Tip = fmt.Sprintf("%s: %d of %d judged runs violated (%.1f%%)", b.Label, b.Violating, b.Runs, 100*b.Rate())
		}
		if p.Param == explore.ParamPause && b.Lo == 1 {
			c.Mark = &mark{X: x, Label: "lease"}
		}
		c.Bars = append(c.Bars, br)
	}
	return c
}

// histogram plots how many runs fall in each bucket of p, the violating
// ones darker.
func histogram(p explore.Plot, yTitle string) chart {
	c := newChart("plot-"+p.Param, p.Title)
	c.YTitle = yTitle
	bs := shown(p.Buckets)
	most := 1
	for _, b := range bs {
		most = max(most, b.Runs)
	}
	for i := 0; i <= 4; i++ {
		c.Grid = append(c.Grid, gridLine{Y: c.Top + c.PlotH*(1-float64(i)/4), Label: fmt.Sprintf("%d", most*i/4)})
	}
	slot := c.PlotW / float64(max(len(bs), 1))
	for i, b := range bs {
		c.Runs += b.Runs
		x := c.Left + slot*float64(i)
		h := c.PlotH * float64(b.Runs) / float64(most)
		vh := c.PlotH * float64(b.Violating) / float64(most)
		c.Bars = append(c.Bars, bar{X: x + (slot-barW(slot))/2, W: barW(slot), Y: c.Top + c.PlotH - h, H: h,
			VY: c.Top + c.PlotH - vh, VH: vh, LabelX: x + slot/2, Label: b.Label,
			Top: fmt.Sprintf("%d", b.Runs), Empty: b.Runs == 0,
			Tip: fmt.Sprintf("damage %s: %d runs (%d violating)", b.Label, b.Runs, b.Violating)})
	}
	return c
}

// barW is a bar's width in a slot: most of it, at most 72 px.
func barW(slot float64) float64 { return min(slot*0.7, 72) }

// Right and Bottom are the plot area's other corner; Mid its vertical
// middle (for the y-axis title).
func (c chart) Right() float64  { return c.Left + c.PlotW }
func (c chart) Bottom() float64 { return c.Top + c.PlotH }
func (c chart) Mid() float64    { return c.Top + c.PlotH/2 }
