package cosmoskit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestEnsureContainerIDLimits: database and container ids follow the service's documented rules
// (at most 255 characters, counted as characters, not bytes; none of / \ ? #; no trailing
// space), the refusal is a *cosmoserr.ValidationError naming the field and never the value, sent
// before any request; an id at the limit in multi-byte characters is created and served by
// cosmostest.
func TestEnsureContainerIDLimits(t *testing.T) {
	ctx := context.Background()
	s, c := newKit(t)
	pk := []string{"/tenantId"}

	// 200 characters, 400 bytes: within the 255-character limit.
	wide := strings.Repeat("é", 200)
	if _, err := c.EnsureContainer(ctx, "shop", cosmoskit.ContainerSpec{ID: wide, PartitionKeyPaths: pk}); err != nil {
		t.Fatalf("200-character (400-byte) container id: %v", err)
	}
	// 255 characters of 3 bytes each, for the database and the container.
	atLimit := strings.Repeat("€", 255)
	ccRes, err := c.EnsureContainer(ctx, atLimit, cosmoskit.ContainerSpec{ID: atLimit, PartitionKeyPaths: pk})
	if err != nil {
		t.Fatalf("255-character (765-byte) ids: %v", err)
	}
	cc := ccRes.Container
	if _, err := cc.Read(ctx, nil); err != nil {
		t.Fatalf("reading the 255-character container back: %v", err)
	}

	before := s.Requests(cosmostest.RequestFilter{})
	for _, tc := range []struct {
		name, db, id, field, reason string
	}{
		{"256 characters", "shop", strings.Repeat("é", 256), "ContainerSpec.ID", "256 characters"},
		{"slash", "shop", "a-secret/value", "ContainerSpec.ID", "/"},
		{"backslash", "shop", `a-secret\value`, "ContainerSpec.ID", `\`},
		{"question mark", "shop", "a-secret?value", "ContainerSpec.ID", "?"},
		{"hash", "shop", "a-secret#value", "ContainerSpec.ID", "#"},
		{"trailing space", "shop", "a-secret-value ", "ContainerSpec.ID", "space"},
		{"empty", "shop", "", "ContainerSpec.ID", "empty"},
		{"not UTF-8", "shop", "a-secret\xffvalue", "ContainerSpec.ID", "UTF-8"},
		{"database 256 characters", strings.Repeat("é", 256), "orders", "db", "256 characters"},
		{"database slash", "a-secret/value", "orders", "db", "/"},
		{"database trailing space", "a-secret-value ", "orders", "db", "space"},
	} {
		_, err := c.EnsureContainer(ctx, tc.db, cosmoskit.ContainerSpec{ID: tc.id, PartitionKeyPaths: pk})
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, cosmoserr.ErrInvalidSpec) {
			t.Errorf("%s: %v, want a *cosmoserr.ValidationError matching ErrInvalidSpec", tc.name, err)
			continue
		}
		if ve.Field != tc.field || !strings.Contains(ve.Reason, tc.reason) {
			t.Errorf("%s: field %q reason %q, want field %q and a reason with %q", tc.name, ve.Field, ve.Reason, tc.field, tc.reason)
		}
		if strings.Contains(err.Error(), "a-secret") || strings.Contains(err.Error(), "éé") {
			t.Errorf("%s: the error quotes the id: %v", tc.name, err)
		}
	}
	if n := s.Requests(cosmostest.RequestFilter{}); n != before {
		t.Errorf("%d requests sent for refused ids, want none", n-before)
	}
	// EnsureDatabase applies the same rules.
	_, err = c.EnsureDatabase(ctx, strings.Repeat("a", 256), cosmoskit.DatabaseOptions{})
	var ve *cosmoserr.ValidationError
	if !errors.As(err, &ve) || ve.Field != "id" || !strings.Contains(ve.Reason, "256 characters; at most 255") {
		t.Errorf("EnsureDatabase with a 256-character id: %v", err)
	}
}
