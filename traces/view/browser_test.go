package view

import (
	"bytes"
	"html"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim/trace"
	"github.com/locksim/locksim/traces"
	"github.com/locksim/locksim/traces/view/headless"
)

// The browser tests render pages in headless Chromium (`apt-get install
// chromium`), read the DOM the page's script built, and take screenshots.
// Screenshots go to $LOCKSIM_SCREENSHOT_DIR, or to a fixed folder under the
// system's temp dir that each run overwrites; their paths are logged (go
// test -v).

func chromium(t *testing.T) string {
	t.Helper()
	bin := headless.Find()
	if bin == "" {
		t.Skip(headless.SkipNote)
	}
	return bin
}

func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LOCKSIM_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "locksim-view-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browse runs headless Chromium on url with extra flags and returns its
// stdout.
func browse(t *testing.T, bin, url string, extra ...string) string {
	t.Helper()
	out, _, err := headless.Run(bin, t.TempDir(), url, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

type browserCase struct {
	name string
	o    *traces.Outcome
}

func bigScenario() protocols.Scenario {
	return protocols.Scenario{Seed: 5, Protocol: "setnx-del", Workload: "unique-name", Clients: 16, Ops: 16,
		FaultKinds: []string{trace.FaultGCPause}}
}

func TestViewRendersInChromium(t *testing.T) {
	bin := chromium(t)
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	shots := screenshotDir(t)
	dir := t.TempDir()

	var cases []browserCase
	cases = append(cases, browserCase{"pause-no-fencing", runReference(t, traces.DefaultReference)})
	for _, sc := range []struct {
		name string
		sc   protocols.Scenario
	}{
		{"setnx-del-gc-pause-seed0", protocols.Scenario{Seed: 0, Protocol: "setnx-del", Workload: "unique-name", FaultKinds: []string{trace.FaultGCPause}}},
		{"big", bigScenario()},
	} {
		o, err := traces.Execute(sc.sc)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, browserCase{sc.name, o})
	}
	if n := len(cases[2].o.File.Trace.Events); n < 2000 {
		t.Errorf("the big scenario has only %d events; want thousands", n)
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteOutcomeView(&buf, c.o); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			url := "file://" + page
			shot := filepath.Join(shots, c.name+".png")
			start := time.Now()
			dom := browse(t, bin, url+"#selftest", "--dump-dom", "--screenshot="+shot, "--window-size=1600,1000")
			t.Logf("%s: %d events, %d KiB page, rendered and self-tested in %v", c.name,
				len(c.o.File.Trace.Events), buf.Len()/1024, time.Since(start).Round(time.Millisecond))
			checkDOM(t, dom, c.o)
			checkPNG(t, shot)
			t.Logf("screenshot: %s", shot)
			if c.name != "pause-no-fencing" {
				return
			}
			// The second tab; porcupine's page draws from a timer once
			// its frame is laid out: let virtual time run before the shot.
			// (A sandboxed frame may take a while to get its layout in
			// headless Chromium under load: one retry.)
			// The tab itself is checked by the self-test above; this
			// picture is for people, and under load the frame may not
			// have drawn yet, so an empty one is logged, not failed.
			shot = filepath.Join(shots, c.name+"-linearization.png")
			drawn := false
			for try := 0; try < 3 && !drawn; try++ {
				browse(t, bin, url+"#linearization", "--screenshot="+shot, "--window-size=1600,1000", "--virtual-time-budget=10000")
				drawn = colorful(t, shot)
			}
			if drawn {
				t.Logf("screenshot: %s", shot)
			} else {
				t.Logf("screenshot %s: porcupine's frame had not drawn yet (machine under load)", shot)
			}
			// A tooltip, as the self-test leaves it after hovering a hold.
			shot = filepath.Join(shots, c.name+"-hover.png")
			browse(t, bin, url+"#selftest-hover", "--screenshot="+shot, "--window-size=1600,1000")
			checkPNG(t, shot)
			t.Logf("screenshot: %s", shot)
		})
	}

	t.Run("fault-kinds", func(t *testing.T) {
		// Partitions, a node crash and restart, a promotion, replication
		// and a clock jump: the marks and shades of other topologies.
		var buf bytes.Buffer
		if err := WriteView(&buf, faultKindsFile(), nil, nil); err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(dir, "fault-kinds.html")
		if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(shots, "fault-kinds.png")
		dom := browse(t, bin, "file://"+page+"#selftest", "--dump-dom", "--screenshot="+shot, "--window-size=1600,1000")
		if !rendered(dom) || !strings.Contains(dom, "<div>locksim-selftest: ok</div>") {
			t.Fatalf("page did not render cleanly:\n%s", statusOf(dom))
		}
		for _, want := range []string{">fault #4: promoted<", ">fault #3: clock +2.00 s<", ">fault #4: restarted<", "fault #1: partition c1&lt;-&gt;m 4.0 s", ">fault #4: down 3.0 s<", "fault #2: replication-lag: replication 500 ms slower for 2.0 s"} {
			if !strings.Contains(dom, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		checkPNG(t, shot)
		t.Logf("screenshot: %s", shot)
	})

	t.Run("hostile-strings", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteView(&buf, hostileFile(), []byte(`<p>"><script>document.title='pwned'</script></p>`), nil); err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(dir, "hostile.html")
		if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		dom := browse(t, bin, "file://"+page+"#selftest", "--dump-dom")
		if !rendered(dom) {
			t.Fatalf("page did not render cleanly:\n%s", statusOf(dom))
		}
		if strings.Contains(dom, `data-pwned="`) || strings.Contains(dom, "<img") {
			t.Error("a trace string became markup")
		}
		if !strings.Contains(dom, "explained "+html.EscapeString(`</script>`)) {
			t.Error("the hostile explanation is not shown as text")
		}
	})
}

// rendered reports whether the page's script finished without an error.
// The markers are written by the script into the DOM; they are spelled so
// that the script's own source (also in the DOM) cannot match them.
func rendered(dom string) bool {
	return strings.Contains(dom, `data-locksim-status="ok"`) && strings.Contains(dom, ">locksim-view: ok; lanes=") &&
		!strings.Contains(dom, `data-locksim-status="error"`)
}

func statusOf(dom string) string {
	i := strings.Index(dom, `id="locksim-status"`)
	j := strings.Index(dom, `id="locksim-errors"`)
	var out []string
	if i >= 0 {
		out = append(out, tail(dom[i:min(len(dom), i+400)], 400))
	}
	if j >= 0 {
		out = append(out, dom[j:min(len(dom), j+1500)])
	}
	return strings.Join(out, "\n")
}

func checkDOM(t *testing.T, dom string, o *traces.Outcome) {
	t.Helper()
	if !rendered(dom) {
		t.Fatalf("page did not render cleanly:\n%s", statusOf(dom))
	}
	if !strings.Contains(dom, "<div>locksim-selftest: ok</div>") {
		t.Errorf("self-test (hover, zoom, tabs) failed:\n%s", statusOf(dom))
	}
	for i, v := range o.File.Report.Violations {
		if !strings.Contains(dom, html.EscapeString(v.Explanation)) {
			t.Errorf("violation %d's explanation not shown: %q", i+1, v.Explanation)
		}
	}
	if len(o.File.Report.Violations) > 0 && !strings.Contains(dom, `id="violation-1"`) {
		t.Error("no violation card")
	}
	// The page drew the lanes: one label per lane and the holds.
	if n := strings.Count(dom, `class="label-name"`); n < 3 {
		t.Errorf("%d lane labels drawn", n)
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	img, err := headless.ReadPNG(path)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// coloredSamples counts sampled pixels that are not background.
func coloredSamples(img image.Image) int {
	b := img.Bounds()
	colored := 0
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xd000 || g < 0xd000 || bl < 0xd000 {
				colored++
			}
		}
	}
	return colored
}

func colorful(t *testing.T, path string) bool { return coloredSamples(readPNG(t, path)) >= 2000 }

func checkPNG(t *testing.T, path string) {
	t.Helper()
	img := readPNG(t, path)
	b := img.Bounds()
	if b.Dx() != 1600 || b.Dy() != 1000 {
		t.Errorf("screenshot is %dx%d, want 1600x1000", b.Dx(), b.Dy())
	}
	// Something was drawn: plenty of pixels that are not background.
	if colored := coloredSamples(img); colored < 2000 {
		t.Errorf("screenshot %s looks empty (%d colored samples)", path, colored)
	}
	// The page is not scrolled away from its header (title, verdict).
	header := 0
	for y := b.Min.Y; y < b.Min.Y+60; y += 2 {
		for x := b.Min.X; x < b.Min.X+600; x += 2 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0x8000 || g < 0x8000 || bl < 0x8000 {
				header++
			}
		}
	}
	if header < 50 {
		t.Errorf("screenshot %s: no header at the top (%d dark samples); is the page scrolled?", path, header)
	}
}
