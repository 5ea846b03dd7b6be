// Package headless finds headless Chromium and runs it on a page, for
// the tests that render locksim's HTML (the timeline, the exploration
// report). Nothing outside tests uses it.
package headless

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Find returns the path of a Chromium binary, or "" when none is
// installed (`apt-get install chromium`).
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// SkipNote is what a test says when it skips for want of Chromium.
const SkipNote = "chromium not installed (apt-get install -y chromium): skipping the rendering test"

// Run renders url with bin in a fresh profile (userDir) and the extra
// flags, logging the page's console to stderr; it returns stdout and the
// console messages (a page that runs no script and loads nothing logs
// none). It gives up after two minutes.
func Run(bin, userDir, url string, extra ...string) (stdout string, console []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + userDir}
	cmd := exec.CommandContext(ctx, bin, append(append(args, extra...), url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := errb.String()
		return "", nil, fmt.Errorf("chromium %v: %v\n%s", extra, err, msg[max(0, len(msg)-2000):])
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			console = append(console, l)
		}
	}
	return out.String(), console, nil
}

// ReadPNG reads a screenshot.
func ReadPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %v", path, err)
	}
	return img, nil
}
