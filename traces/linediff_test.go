package traces

import (
	"fmt"
	"strings"
	"testing"
)

// lineDiff describes how got differs from want, line by line: the lines
// only want has ("-") and only got has ("+"), in order, with up to two
// lines of context around each change and at most maxLines lines in all.
// It returns "" when they are equal.
func lineDiff(want, got string, maxLines int) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// common[i][j] is the length of the longest common subsequence of
	// a[i:] and b[j:].
	common := make([][]int, len(a)+1)
	for i := range common {
		common[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	type line struct {
		mark byte // ' ', '-' or '+'
		text string
		at   int // line number in want (for ' ' and '-') or got ('+'), 1-based
	}
	var lines []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, line{' ', a[i], i + 1})
			i, j = i+1, j+1
		case j == len(b) || i < len(a) && common[i+1][j] >= common[i][j+1]:
			lines = append(lines, line{'-', a[i], i + 1})
			i++
		default:
			lines = append(lines, line{'+', b[j], j + 1})
			j++
		}
	}
	const context = 2
	var out strings.Builder
	n, last := 0, -1
	for k, l := range lines {
		near := false
		for d := max(0, k-context); d <= min(len(lines)-1, k+context); d++ {
			near = near || lines[d].mark != ' '
		}
		if !near {
			continue
		}
		if n == maxLines {
			out.WriteString("...\n")
			break
		}
		if last >= 0 && k > last+1 {
			out.WriteString("@@\n")
		}
		fmt.Fprintf(&out, "%c%4d %s\n", l.mark, l.at, l.text)
		n, last = n+1, k
	}
	return out.String()
}

func TestLineDiff(t *testing.T) {
	if d := lineDiff("a\nb\n", "a\nb\n", 10); d != "" {
		t.Fatalf("equal texts: %q", d)
	}
	want := "a\nb\nc\nd\ne\nf\ng\n"
	got := "a\nb\nc\nD\ne\nf\ng\nh\n"
	d := lineDiff(want, got, 20)
	exp := "    2 b\n    3 c\n-   4 d\n+   4 D\n    5 e\n    6 f\n    7 g\n+   8 h\n    8 \n"
	if d != exp {
		t.Fatalf("diff:\n%s\nwant:\n%s", d, exp)
	}
	if d := lineDiff(want, got, 2); d != "    2 b\n    3 c\n...\n" {
		t.Fatalf("capped diff: %q", d)
	}
}
