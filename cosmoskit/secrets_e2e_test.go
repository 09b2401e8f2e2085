package cosmoskit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azlog "github.com/Azure/azure-sdk-for-go/sdk/azcore/log"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// TestNoKeyInAnyOutput drives cosmoskit.New clients (by key and by connection string, with the right
// key and a wrong one) through successes and every kind of failure (401, 404, 409, 429 past the
// budget, 503, 500, a dropped connection, a dead endpoint) with every output turned up: the startup
// logger and the diagnostics logger at Debug, the SDK's own log listener with every event class,
// and an OpenTelemetry span recorder. Neither key, nor a recognisable part of it, may appear in any
// log line, error string (%v and %+v), span (name, attributes, events, status) or diagnostics string.
func TestNoKeyInAnyOutput(t *testing.T) {
	const serverKey = "c2VydmVyLWtleS1zZXJ2ZXIta2V5LXNlcnZlci1rZXktc2VydmVyLWtleS0xMjM0NTY3ODkw"
	const wrongCSKey = "Y29ubmVjdGlvbi1zdHJpbmcta2V5LXRoYXQtaXMtd3JvbmctYW5kLW11c3Qtbm90LWxlYWs="
	ctx := context.Background()
	s := cosmostest.NewServer(t, cosmostest.WithKey(serverKey), cosmostest.WithRegions("West US", "East US"))
	dead := cosmostest.NewServer(t, cosmostest.WithKey(serverKey))
	deadEndpoint := dead.Endpoint()
	dead.Close()

	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	azlog.SetListener(func(ev azlog.Event, msg string) { _, _ = fmt.Fprintf(&logs, "azcore %s: %s\n", ev, msg) })
	t.Cleanup(func() { azlog.SetListener(nil) })
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	var outputs []string
	record := func(err error) {
		if err == nil {
			return
		}
		outputs = append(outputs, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var de *cosmoserr.Error
		if errors.As(err, &de) {
			outputs = append(outputs, de.Diagnostics.String(), fmt.Sprintf("%+v", *de))
		}
	}
	newClient := func(cfg cosmoskit.Config) *cosmoskit.Client {
		t.Helper()
		cfg.Logger = logger
		cfg.Diagnostics = diagnostics.Options{TracerProvider: tp, Logger: logger, CaptureQueryText: true, PointLatencyThreshold: time.Nanosecond}
		cfg.Retry.Throttle.MaxRetries = 2
		cfg.PreferredRegions = []string{"West US", "East US"}
		logger.Info("config", "cfg", cfg)
		outputs = append(outputs, fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg))
		c, err := cosmoskit.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}

	// The right key, from a connection string: successes and service failures.
	good := newClient(cosmoskit.Config{ConnectionString: s.ConnectionString()})
	ccRes, err := good.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	pk := azcosmos.NewPartitionKeyString("a")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil); err != nil {
		t.Fatal(err)
	}
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil)
	record(cosmoserr.FromError(cosmoserr.OpCreateItem, err))
	_, err = cc.ReadItem(ctx, pk, "missing", nil)
	record(cosmoserr.FromError(cosmoserr.OpReadItem, err))
	read := cosmostest.Fault{Operation: cosmostest.OpReadItem, RetryAfter: time.Millisecond}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusInternalServerError} {
		f := read
		f.Status = status
		h := s.InjectFault(f)
		_, err = cc.ReadItem(ctx, pk, "1", nil)
		h.Remove()
		if err == nil {
			t.Fatalf("read with every region answering %d succeeded", status)
		}
		record(err)
		record(cosmoserr.FromError(cosmoserr.OpReadItem, err))
	}
	h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpUpsertItem, DropConnection: true, Times: 1})
	_, err = cc.UpsertItem(ctx, pk, []byte(`{"id":"2","pk":"a"}`), nil)
	h.Remove()
	record(cosmoserr.FromError(cosmoserr.OpUpsertItem, err))
	pager := cc.NewQueryItemsPager("SELECT * FROM c WHERE c.id = @id", pk, &azcosmos.QueryOptions{
		QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "1"}}})
	for pager.More() {
		if _, err := pager.NextPage(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// Wrong keys, by key and by connection string: 401s.
	for _, cfg := range []cosmoskit.Config{
		{Endpoint: s.Endpoint(), Key: wrongKey},
		{ConnectionString: "AccountEndpoint=" + s.Endpoint() + ";AccountKey=" + wrongCSKey + ";"},
	} {
		_, err := newClient(cfg).EnsureDatabase(ctx, "db", cosmoskit.DatabaseOptions{})
		if !errors.Is(err, cosmoserr.ErrUnauthorized) {
			t.Fatalf("wrong key: %v, want ErrUnauthorized", err)
		}
		record(err)
	}

	// A dead endpoint: transport errors. (The SDK reads the account metadata on a context without the
	// caller's deadline, and azcore retries a refused connection 3 times with backoff: turned off here
	// to keep the test fast.)
	noRetry := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	_, err = newClient(cosmoskit.Config{Endpoint: deadEndpoint, Key: serverKey, ClientOptions: noRetry}).EnsureDatabase(ctx, "db", cosmoskit.DatabaseOptions{})
	if err == nil {
		t.Fatal("EnsureDatabase on a closed server succeeded")
	}
	record(err)

	for _, sp := range spans.Ended() {
		outputs = append(outputs, sp.Name(), sp.Status().Description)
		for _, kv := range sp.Attributes() {
			outputs = append(outputs, string(kv.Key)+"="+kv.Value.String())
		}
		for _, ev := range sp.Events() {
			outputs = append(outputs, ev.Name)
			for _, kv := range ev.Attributes {
				outputs = append(outputs, string(kv.Key)+"="+kv.Value.String())
			}
		}
	}
	outputs = append(outputs, logs.String())
	if !strings.Contains(logs.String(), "azcore Request") || !strings.Contains(logs.String(), `"status":401`) ||
		!strings.Contains(logs.String(), "Authorization: REDACTED") {
		t.Fatalf("the SDK's request log or the diagnostics' 401 record is missing; the test is not looking at them:\n%s", logs.String())
	}
	for _, out := range outputs {
		for _, key := range []string{serverKey, wrongKey, wrongCSKey} {
			for _, part := range []string{key, key[:16], key[len(key)-16:]} {
				if strings.Contains(out, part) {
					t.Fatalf("key material %q found in output:\n%s", part, out)
				}
			}
		}
	}
}
