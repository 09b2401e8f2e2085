package cosmostest_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// holdingTransport returns each change-feed response to the SDK only when release is closed,
// without reading its body: a client that is slow to read a large answer.
type holdingTransport struct {
	inner   *http.Client
	arrived chan struct{}
	release chan struct{}
}

func (h *holdingTransport) Do(req *http.Request) (*http.Response, error) {
	resp, err := h.inner.Do(req)
	if err == nil && req.Header.Get("A-IM") != "" {
		h.arrived <- struct{}{}
		<-h.release
		if cerr := req.Context().Err(); cerr != nil {
			_ = resp.Body.Close()
			return nil, cerr
		}
	}
	return resp, err
}

// TestSlowReaderDoesNotBlockOthers: a client that reads a large response slowly holds up only
// itself; the server writes responses outside its lock, so every other request is served.
func TestSlowReaderDoesNotBlockOthers(t *testing.T) {
	s, cc := setup(t, cosmostest.WithHTTP())
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	// A 4 MB change feed page (the largest the service sends): more than the socket buffers take
	// without the client reading.
	filler := strings.Repeat("x", 1950*1024)
	for i := range 2 {
		doc := fmt.Sprintf(`{"id":"big%d","pk":"p","s":%q}`, i, filler)
		if _, err := cc.CreateItem(ctx, pk, []byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"small","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	ranges, err := cc.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The slow client's connection has a tiny receive buffer, so the answer fills the server's
	// send buffer (at most 4 MB on Linux by default) and then blocks the writer.
	tr := &http.Transport{DialContext: (&net.Dialer{Control: smallReceiveBuffer}).DialContext}
	defer tr.CloseIdleConnections()
	ht := &holdingTransport{inner: &http.Client{Transport: tr}, arrived: make(chan struct{}, 1), release: make(chan struct{})}
	slow := newClient(t, s, func(o *azcosmos.ClientOptions) { o.Transport = ht })
	slowC, err := slow.NewContainer("db", "c1")
	if err != nil {
		t.Fatal(err)
	}
	// The slow client gives up in the end (its context is cancelled), so the test does not wait
	// for it to decode megabytes.
	slowCtx, giveUp := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := slowC.ReadChangeFeed(slowCtx, &azcosmos.ChangeFeedOptions{FeedRange: &ranges[0]})
		done <- err
	}()
	defer func() {
		giveUp()
		close(ht.release)
		if err := <-done; err == nil {
			t.Error("the slow read succeeded after its client gave up")
		}
	}()
	<-ht.arrived
	time.Sleep(50 * time.Millisecond) // let the server fill the client's buffers

	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := cc.ReadItem(rctx, pk, "small", nil); err != nil {
		t.Fatalf("read while another client reads slowly: %v", err)
	}
}
