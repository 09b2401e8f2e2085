package browsertest_test

import (
	"bytes"
	"image/png"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cosmoskit/cosmoskit-go/internal/browsertest"
)

func TestBrowserRendersPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><body style="margin:0;background:#ff0000">` +
			`<p id="msg">hello <b>browser</b></p><script>document.title = "ready"</script>`))
	}))
	defer srv.Close()

	ctx := browsertest.New(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("#msg"))); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#msg")))
	if err != nil {
		t.Fatal(err)
	}
	if title != "ready" || text != "hello browser" {
		t.Fatalf("title %q text %q: the page's script or markup did not run", title, text)
	}
	shot, err := browsertest.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := img.At(img.Bounds().Max.X-5, img.Bounds().Max.Y-5).RGBA()
	if r>>8 < 200 || g>>8 > 50 || b>>8 > 50 {
		t.Fatalf("corner pixel = %d,%d,%d, want the page's red background", r>>8, g>>8, b>>8)
	}
}

// TestNewSizedNarrow: the page gets the width asked for, also below Chromium's smallest window
// (500 px in headless mode), so a narrow layout is really checked.
func TestNewSizedNarrow(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><meta name="viewport" content="width=device-width"><title>t</title><p>narrow</p>`))
	}))
	defer srv.Close()
	ctx := browsertest.NewSized(t, 375, 700)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
	if err != nil || w != 375 {
		t.Fatalf("window.innerWidth = %d (%v), want 375", w, err)
	}
}
