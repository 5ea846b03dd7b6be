package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/locksim/locksim/traces/explore"
	"github.com/locksim/locksim/traces/view/headless"
)

// renderPage renders url and returns the DOM and the console messages.
func renderPage(t *testing.T, bin, url string, extra ...string) (dom string, console []string) {
	t.Helper()
	dom, console, err := headless.Run(bin, t.TempDir(), url, append([]string{"--dump-dom"}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return dom, console
}

// TestExploreReportRendersInChromium: explore --out --html writes a report
// that Chromium renders with no console message at all, with a chart per
// drawn parameter, and links timelines that render too.
func TestExploreReportRendersInChromium(t *testing.T) {
	bin := headless.Find()
	if bin == "" {
		t.Skip(headless.SkipNote)
	}
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	dir := t.TempDir()
	// The detector works here: a page that loads from the net logs.
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><img src="http://example.invalid/x.png"><p>x</p>`), 0o644)
	if _, console := renderPage(t, bin, "file://"+bad); len(console) == 0 {
		t.Fatal("chromium logged no console message for a blocked load: the check below could not fail")
	}

	out, page := filepath.Join(dir, "out"), filepath.Join(dir, "out", "report.html")
	code, stdout, stderr := runCLI("explore", "--protocol", "setnx-del", "--faults", "gc-pause", "--runs", "120",
		"--out", out, "--html", page)
	if code != exitViolation || !strings.Contains(stdout, "wrote "+page) {
		t.Fatalf("explore: exit %d\n%s%s", code, stdout, stderr)
	}
	shot := filepath.Join(os.TempDir(), "locksim-report-screenshots", "explore-report.png")
	os.MkdirAll(filepath.Dir(shot), 0o755)
	dom, console := renderPage(t, bin, "file://"+page, "--screenshot="+shot, "--window-size=1200,2000")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	for _, id := range []string{explore.ParamPause, explore.ParamIntensity, explore.ParamClients, explore.ParamDamage} {
		if !strings.Contains(dom, `id="plot-`+id+`"`) {
			t.Errorf("rendered page has no chart %s", id)
		}
	}
	if n := strings.Count(dom, `class="rate"`); n < 8 {
		t.Errorf("%d bars drawn", n)
	}
	checkShot(t, shot)
	t.Logf("screenshot: %s", shot)

	links := regexp.MustCompile(`class="timeline" href="([^"]+)"`).FindAllStringSubmatch(dom, -1)
	if len(links) == 0 {
		t.Fatal("no cause links its timeline")
	}
	for _, l := range links {
		tl := filepath.Join(out, l[1])
		if _, err := os.Stat(tl); err != nil {
			t.Fatalf("link %s: %v", l[1], err)
		}
	}
	tl := filepath.Join(out, links[0][1])
	if dom, console := renderPage(t, bin, "file://"+tl+"#selftest"); !strings.Contains(dom, `data-locksim-status="ok"`) || len(console) > 0 {
		t.Errorf("linked timeline %s did not render cleanly: %s", tl, strings.Join(console, "\n"))
	}
}

// checkShot checks that the screenshot shows something besides white.
func checkShot(t *testing.T, path string) {
	t.Helper()
	img, err := headless.ReadPNG(path)
	if err != nil {
		t.Fatal(err)
	}
	red := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			if r, g, _, _ := img.At(x, y).RGBA(); r > 0xb000 && g < 0x6000 {
				red++
			}
		}
	}
	if red < 500 {
		t.Errorf("screenshot %s: %d red samples; the bars are not drawn", path, red)
	}
}
