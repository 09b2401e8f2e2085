package cosmostest_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/browsertest"
)

// envExplorerScreenshot, when set, names a PNG file the browser test writes a screenshot of the
// explorer to (how docs/explorer.png is made).
const envExplorerScreenshot = "COSMOSTEST_EXPLORER_SCREENSHOT"

// hostile is an item value that would run script if the page rendered it as HTML.
const hostile = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold</b>`

// explorerFixture starts a server with the explorer and a container of 25 orders (one with a
// hostile note and a hostile id), written through azcosmos.
func explorerFixture(t *testing.T) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithExplorer(exToken), cosmostest.WithPartitionCount(2))
	c := newClient(t, s, nil)
	cc := newContainer(t, c, "orders", &azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}})
	ctx := context.Background()
	for i := range 25 {
		id, note := fmt.Sprintf("o%02d", i), "plain"
		if i == 7 {
			id, note = "<b>o07</b>", hostile
		}
		doc := fmt.Sprintf(`{"id":%q,"customer":"c%d","total":%d,"note":%q}`, id, i%5, 10*i, note)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprintf("c%d", i%5)), []byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	return s, cc
}

// poll waits until the JavaScript expression is truthy, failing t with what after 15 s.
func poll(t *testing.T, ctx context.Context, expr, what string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// TestExplorerInBrowser drives the explorer in headless Chromium as a person would: open a
// container with the keyboard, page its items, edit one and see the new ETag (the one azcosmos
// reads), run a query and see its charge (the one azcosmos gets), inject a 429 and see it listed.
// Values holding HTML are shown as text and never run.
func TestExplorerInBrowser(t *testing.T) {
	ctx := browsertest.New(t)
	s, cc := explorerFixture(t)

	do(t, ctx, chromedp.Navigate(s.ExplorerURL()+"#token="+exToken),
		chromedp.WaitVisible(chromedp.CSS(`#dbs button.coll[data-coll="orders"]`)))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); strings.Contains(loc, exToken) {
		t.Errorf("the token stays in the address bar: %s", loc)
	}

	// Open the container with the keyboard: focus its button, press Enter.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`#dbs button.coll[data-coll="orders"]`)), chromedp.KeyEvent(kb.Enter))
	poll(t, ctx, `document.querySelectorAll('#items tbody button.open').length === 20`, "the first page of 20 items")
	if got := text(t, ctx, "#coll-title"); got != "db / orders" {
		t.Errorf("title %q", got)
	}
	// The tabs move with the arrow keys.
	do(t, ctx, chromedp.Focus(chromedp.CSS("#tab-items")), chromedp.KeyEvent(kb.ArrowRight))
	poll(t, ctx, `document.getElementById('tab-query').getAttribute('aria-selected') === 'true' && document.activeElement.id === 'tab-query'`, "ArrowRight to the Query tab")
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	poll(t, ctx, `!document.getElementById('view-items').hidden`, "ArrowLeft back to Items")

	// Page: 25 items, 20 per page.
	do(t, ctx, chromedp.Click(chromedp.CSS("#items-next")))
	poll(t, ctx, `document.querySelectorAll('#items tbody button.open').length === 5`, "the second page of 5 items")
	if got := text(t, ctx, "#items-info"); !strings.HasPrefix(got, "Page 2, 5 item(s), ") {
		t.Errorf("items info %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#items-prev")))
	poll(t, ctx, `document.querySelectorAll('#items tbody button.open').length === 20`, "back to the first page")

	// HTML in an id and in a value is text.
	poll(t, ctx, `[...document.querySelectorAll('#items button.open')].some(b => b.textContent === '<b>o07</b>')`, "the hostile id shown as text")
	do(t, ctx, chromedp.Click(chromedp.CSS(`#items button.open[data-id="<b>o07</b>"]`)))
	poll(t, ctx, `document.getElementById('item-text').value.includes('onerror')`, "the hostile item in the editor")
	injected, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned !== undefined || document.querySelector('#app b, #app img, #app script') !== null`))
	if err != nil || injected {
		t.Fatalf("a value was rendered as HTML (injected %v, err %v)", injected, err)
	}

	// Edit o03: the new ETag is shown, and it is the one azcosmos reads.
	do(t, ctx, chromedp.Click(chromedp.CSS(`#items button.open[data-id="o03"]`)))
	poll(t, ctx, `document.getElementById('item-text').value.includes('"o03"')`, "o03 in the editor")
	oldETag := text(t, ctx, "#etag")
	edited, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('item-text').value.replace('"total": 30', '"total": 31')`))
	if err != nil || !strings.Contains(edited, `"total": 31`) {
		t.Fatalf("edit: %q %v", edited, err)
	}
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#item-text"), edited), chromedp.Click(chromedp.CSS("#save")))
	poll(t, ctx, `document.getElementById('editor-msg').textContent.startsWith('Replaced')`, "the replace to be confirmed")
	newETag := text(t, ctx, "#etag")
	if newETag == oldETag || newETag == "" {
		t.Fatalf("ETag %q after the edit, was %q", newETag, oldETag)
	}
	read, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("c3"), "o03", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(read.ETag) != newETag || !strings.Contains(string(read.Value), `"total":31`) {
		t.Errorf("azcosmos reads ETag %s and %s; the page shows %s", read.ETag, read.Value, newETag)
	}

	// A query the gateway will not run across partitions says so, and runs within one.
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-query")), chromedp.SetValue(chromedp.CSS("#query"), "SELECT * FROM c ORDER BY c.total DESC"),
		chromedp.Click(chromedp.CSS("#run")))
	poll(t, ctx, `document.getElementById('query-msg').textContent.includes('give a partition key')`, "the cross-partition ORDER BY refused")
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#query-pk"), `"c3"`), chromedp.Click(chromedp.CSS("#run")))
	poll(t, ctx, `document.getElementById('query-count').textContent === '5' && document.getElementById('query-ranges').textContent.length === 1`, "five rows of c3 from one range")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('query-pk').value = ''`))

	// Run a query: the charge shown is azcosmos's.
	query := "SELECT c.id, c.total FROM c WHERE c.total >= 100"
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-query")), chromedp.SetValue(chromedp.CSS("#query"), query), chromedp.Click(chromedp.CSS("#run")))
	poll(t, ctx, `document.getElementById('query-msg').textContent === '' && document.getElementById('query-count').textContent !== '5'`, "the query's answer")
	page, err := cc.NewQueryItemsPager(query, azcosmos.NewPartitionKey(), nil).NextPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shown, err := strconv.ParseFloat(text(t, ctx, "#query-charge"), 64)
	if err != nil || fmt.Sprintf("%.2f", shown) != fmt.Sprintf("%.2f", page.RequestCharge) {
		t.Errorf("the page shows %v RU, azcosmos got %v", shown, page.RequestCharge)
	}
	rows, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#query-results pre').length`))
	if rows != len(page.Items) {
		t.Errorf("%d rows shown, azcosmos got %d", rows, len(page.Items))
	}
	if got := text(t, ctx, "#query-ranges"); got != "0, 1" {
		t.Errorf("ranges targeted %q, want both", got)
	}

	// The change feed lists the edited item.
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-feed")), chromedp.Click(chromedp.CSS("#feed-read")))
	poll(t, ctx, `[...document.querySelectorAll('#feed td')].some(td => td.textContent === 'o03')`, "o03 in the change feed")

	// Inject a 429 on item reads and see it listed; the next read sees it.
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-controls")))
	poll(t, ctx, `document.querySelectorAll('#fault-op option').length > 1`, "the operations")
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#fault-op"), "read_item"), chromedp.SetValue(chromedp.CSS("#fault-status"), "429"),
		chromedp.SetValue(chromedp.CSS("#fault-times"), "1"), chromedp.SetValue(chromedp.CSS("#fault-retry"), "5"),
		chromedp.Click(chromedp.CSS("#fault-add")))
	poll(t, ctx, `document.querySelectorAll('#faults tr[data-fault]').length === 1`, "the fault listed")
	if got := text(t, ctx, "#faults tr[data-fault]"); !strings.Contains(got, "status=429") || !strings.Contains(got, `operation="read_item"`) {
		t.Errorf("fault row %q", got)
	}
	if _, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("c3"), "o03", nil); err != nil {
		t.Fatal(err) // retried past the one 429
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-props")), chromedp.Click(chromedp.CSS("#tab-controls")))
	poll(t, ctx, `document.querySelector('#faults tr[data-fault] td.num').textContent === '1 (done)'`, "the fault's hit")

	if p := os.Getenv(envExplorerScreenshot); p != "" {
		do(t, ctx, chromedp.Click(chromedp.CSS("#tab-items")))
		poll(t, ctx, `document.querySelectorAll('#items tbody button.open').length === 20`, "the items")
		do(t, ctx, chromedp.Click(chromedp.CSS(`#items button.open[data-id="o03"]`)))
		poll(t, ctx, `document.getElementById('item-text').value.includes('"o03"')`, "o03 in the editor")
		do(t, ctx, chromedp.Click(chromedp.CSS("#save")))
		poll(t, ctx, `document.getElementById('editor-msg').textContent.startsWith('Replaced')`, "the replace")
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur(); window.scrollTo(0, 0)`))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExplorerNarrowAndKeyboard: at a phone's width the page needs no sideways scrolling, and the
// token form, the container list and the item editor work from the keyboard alone.
func TestExplorerNarrowAndKeyboard(t *testing.T) {
	ctx := browsertest.NewSized(t, 375, 800)
	s, _ := explorerFixture(t)
	do(t, ctx, chromedp.Navigate(s.ExplorerURL()), chromedp.WaitVisible(chromedp.CSS("#token")))
	// A wrong token is refused and the form stays.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), "wrong"+kb.Enter))
	poll(t, ctx, `document.getElementById('login-msg').textContent.includes('refused')`, "the refusal")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), exToken+kb.Enter))
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#dbs button.coll[data-coll="orders"]`)))
	noSideways := `document.documentElement.scrollWidth <= window.innerWidth`
	if w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`)); err != nil || w != 375 {
		t.Fatalf("the page is %d px wide, want 375 (%v)", w, err)
	}
	poll(t, ctx, noSideways, "no sideways scrolling on the controls")
	do(t, ctx, chromedp.Focus(chromedp.CSS(`#dbs button.coll[data-coll="orders"]`)), chromedp.KeyEvent(kb.Enter))
	poll(t, ctx, `document.querySelectorAll('#items tbody button.open').length === 20`, "the items")
	poll(t, ctx, noSideways, "no sideways scrolling on the items")
	do(t, ctx, chromedp.Focus(chromedp.CSS(`#items button.open[data-id="o01"]`)), chromedp.KeyEvent(kb.Enter))
	poll(t, ctx, `document.activeElement.id === 'item-text'`, "the editor focused")
	poll(t, ctx, noSideways, "no sideways scrolling with the editor open")
	do(t, ctx, chromedp.KeyEvent(kb.Escape))
	poll(t, ctx, `document.getElementById('editor').hidden`, "Escape to close the editor")
	for _, tab := range []string{"#tab-props", "#tab-query", "#tab-feed"} {
		do(t, ctx, chromedp.Focus(chromedp.CSS(tab)), chromedp.KeyEvent(kb.Enter))
		poll(t, ctx, fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-selected') === 'true'`, tab), tab)
		poll(t, ctx, noSideways, "no sideways scrolling on "+tab)
	}
	// Text stays readable: nothing below 12 px.
	small, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('#app *')].filter(e => e.offsetParent && parseFloat(getComputedStyle(e).fontSize) < 12).length`))
	if err != nil || small != 0 {
		t.Errorf("%d elements with text below 12px (%v)", small, err)
	}
}
