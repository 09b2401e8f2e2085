package repository_test

import (
	"context"
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestPatchExplainsAndUpgrades: a patch refused by the type/version guard says why, and a
// document of an older schema version is upgraded and then patched.
func TestPatchExplainsAndUpgrades(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	people := newPeople(t, e.container)
	rawPut(t, e.container, "t1", `{"id":"p1","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	got, err := people.Patch(ctx, pk("t1"), "p1", repository.NewPatch().Set("/country", "UK"))
	if err != nil || got.Country != "UK" || got.Family != "Lovelace" {
		t.Fatalf("Patch of a v1 document = %+v, %v", got, err)
	}
	if raw := rawGet(t, e.container, "t1", "p1"); raw["schemaVersion"] != float64(3) || raw["country"] != "UK" || raw["name"] != nil {
		t.Fatalf("stored = %v", raw)
	}

	// another type: both sentinels, nothing patched
	rawPut(t, e.container, "t1", `{"id":"x","tenant":"t1","type":"robot","schemaVersion":1}`)
	_, err = people.Patch(ctx, pk("t1"), "x", repository.NewPatch().Set("/country", "UK"))
	if !errors.Is(err, cosmoserr.ErrTypeMismatch) || !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("Patch of another type = %v, want ErrTypeMismatch and ErrPreconditionFailed", err)
	}
	// a newer version
	rawPut(t, e.container, "t1", `{"id":"n","tenant":"t1","type":"person","schemaVersion":9}`)
	if _, err := people.Patch(ctx, pk("t1"), "n", repository.NewPatch().Set("/country", "UK")); !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) {
		t.Fatalf("Patch of a v9 document = %v, want ErrUnknownSchemaVersion", err)
	}
	for id, raw := range map[string]map[string]any{"x": rawGet(t, e.container, "t1", "x"), "n": rawGet(t, e.container, "t1", "n")} {
		if raw["country"] != nil {
			t.Fatalf("%s was patched: %v", id, raw)
		}
	}
	// a failed When stays a plain precondition failure
	_, err = people.Patch(ctx, pk("t1"), "p1", repository.NewPatch().Set("/country", "FR").When("c.country = 'DE'"))
	if !errors.Is(err, cosmoserr.ErrPreconditionFailed) || errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("failed When = %v", err)
	}
	// with IfMatch an old document is not upgraded behind the caller's ETag
	rawPut(t, e.container, "t1", `{"id":"p2","tenant":"t1","type":"person","schemaVersion":2,"first":"Alan","last":"Turing"}`)
	etag := rawETag(t, e, "p2")
	if _, err := people.Patch(ctx, pk("t1"), "p2", repository.NewPatch().Set("/country", "UK"), repository.IfMatch(etag)); !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
		t.Fatalf("IfMatch on a v2 document = %v", err)
	}
	if raw := rawGet(t, e.container, "t1", "p2"); raw["schemaVersion"] != float64(2) {
		t.Fatalf("stored = %v", raw)
	}
}

func rawETag(t *testing.T, e *env, id string) azcore.ETag {
	t.Helper()
	resp, err := e.container.ReadItem(context.Background(), pk("t1").SDK(), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp.ETag
}
