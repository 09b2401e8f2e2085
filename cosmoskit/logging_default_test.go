package cosmoskit_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestConfigLoggerReceivesFailures shows that with a zero Config.Diagnostics, a failed operation is
// logged once to Config.Logger with its status, sub-status and activity id, and successes are not.
func TestConfigLoggerReceivesFailures(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t)
	var buf lockedBuffer
	// Without timestamps: their digits could spell "500" on a line that is not a failure.
	noTime := func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: noTime}))
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "items", PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	cc := ccRes.Container
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	before := strings.Count(buf.String(), "\n")
	fault := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: 500})
	_, err = cc.ReadItem(ctx, pk, "a", nil)
	fault.Remove()
	if err == nil {
		t.Fatal("read with an injected 500 succeeded")
	}
	logged := buf.String()
	lines := strings.Split(strings.TrimSpace(logged), "\n")[before:]
	var failures []string
	for _, l := range lines {
		if strings.Contains(l, "500") {
			failures = append(failures, l)
		}
	}
	if len(failures) != 1 {
		t.Fatalf("want the failed read logged once, got %d lines:\n%s", len(failures), strings.Join(lines, "\n"))
	}
	if !strings.Contains(failures[0], "read_item") {
		t.Errorf("failure line does not name the operation: %s", failures[0])
	}
	if strings.Contains(logged, s.Key()) {
		t.Error("the account key appears in the log")
	}
}
