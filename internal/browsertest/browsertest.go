// Package browsertest drives headless Chromium from Go tests, to check a page as a person sees it.
//
// New starts a browser for one test and returns a chromedp context; the test skips with a printed
// reason where no Chromium is installed (.ci/run installs Debian's chromium package where it is
// missing, so CI runs these tests). When the test fails, a screenshot of the page is saved and its
// path logged.
//
//	ctx := browsertest.New(t)
//	err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#items"))
//	title, err := chromedp.Run(ctx, chromedp.Title())
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// EnvBrowser names a Chromium or Chrome binary to use instead of the first found on PATH.
const EnvBrowser = "BROWSERTEST_CHROMIUM"

// EnvArtifacts names the folder failure screenshots are written to (default: a folder in os.TempDir()).
const EnvArtifacts = "BROWSERTEST_ARTIFACTS"

// Timeout bounds one test's use of the browser: New's context ends after it.
const Timeout = 2 * time.Minute

// candidates are the binary names tried on PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// Browser returns the path of the browser New would start, or an error saying why there is none.
func Browser() (string, error) {
	if p := os.Getenv(EnvBrowser); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBrowser, p, err)
		}
		return p, nil
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (tried %s; install Debian's chromium package, as .ci/run does, or set %s)",
		strings.Join(candidates, ", "), EnvBrowser)
}

// New starts headless Chromium for t at a 1280×900 window and returns a context for chromedp.Do and chromedp.Run.
// It skips t where no browser is installed. The browser is closed when t ends; if t failed, a
// screenshot of the current page is saved first and its path logged.
func New(t testing.TB) context.Context {
	t.Helper()
	return NewSized(t, 1280, 900)
}

// NewSized is New with the window size given, for checking a page at a narrow width.
func NewSized(t testing.TB, width, height int) context.Context {
	t.Helper()
	path, err := Browser()
	if err != nil {
		t.Skipf("browsertest: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0], chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.ExecPath(path),
		chromedp.WindowSize(width, height),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, Timeout)
	if err := chromedp.Do(ctx); err != nil { // starts the browser now, so a broken install skips here
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
		t.Skipf("browsertest: %s would not start: %v", path, err)
	}
	// Headless Chromium keeps its window at least 500 px wide; the viewport is set as well, so the
	// page gets the width asked for (a phone's 375 px).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("browsertest: set the viewport to %d×%d: %v", width, height, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if p, err := saveScreenshot(ctx, t.Name()); err != nil {
				t.Logf("browsertest: no failure screenshot: %v", err)
			} else {
				t.Logf("browsertest: failure screenshot: %s", p)
			}
		}
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

// Screenshot returns a PNG of the whole page as it is now.
func Screenshot(ctx context.Context) ([]byte, error) {
	return chromedp.Run(ctx, chromedp.FullScreenshot(100))
}

func saveScreenshot(ctx context.Context, name string) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := Screenshot(sctx)
	if err != nil {
		return "", err
	}
	dir := os.Getenv(EnvArtifacts)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "browsertest-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".png")
	return p, os.WriteFile(p, png, 0o644)
}
