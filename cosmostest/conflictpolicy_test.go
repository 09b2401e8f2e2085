package cosmostest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestConflictResolutionPolicy: the policy is validated, defaulted and returned as the service does
// (the cases of the Java SDK's MultiMasterConflictResolutionTest, which runs against the service).
func TestConflictResolutionPolicy(t *testing.T) {
	s := cosmostest.NewServer(t)
	client := newClient(t, s, nil)
	ctx := context.Background()
	newContainer(t, client, "seed", nil)
	db, _ := client.NewDatabase("db")
	lww, custom := azcosmos.ConflictResolutionModeLastWriteWins, azcosmos.ConflictResolutionModeCustom
	cases := []struct {
		name    string
		policy  *azcosmos.ConflictResolutionPolicy
		want    azcosmos.ConflictResolutionPolicy
		wantErr string
	}{
		{name: "default", want: azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "/_ts"}},
		{name: "lww without path", policy: &azcosmos.ConflictResolutionPolicy{Mode: lww}, want: azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "/_ts"}},
		{name: "lww on /version", policy: &azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "/version"}, want: azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "/version"}},
		{name: "empty mode", policy: &azcosmos.ConflictResolutionPolicy{}, want: azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "/_ts"}},
		{name: "custom feed", policy: &azcosmos.ConflictResolutionPolicy{Mode: custom}, want: azcosmos.ConflictResolutionPolicy{Mode: custom}},
		{name: "nested path", policy: &azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "/a/b"}, wantErr: "Invalid path '/a/b' for last writer wins conflict resolution"},
		{name: "not a path", policy: &azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionPath: "someText"}, wantErr: "Invalid path 'someText' for last writer wins conflict resolution"},
		{name: "lww with procedure", policy: &azcosmos.ConflictResolutionPolicy{Mode: lww, ResolutionProcedure: "dbs/db/colls/x/sprocs/p"}, wantErr: "LastWriterWins conflict resolution mode should not have conflict resolution procedure set."},
		{name: "custom with path", policy: &azcosmos.ConflictResolutionPolicy{Mode: custom, ResolutionPath: "/v"}, wantErr: "Custom conflict resolution mode should not have conflict resolution path set."},
		{name: "custom with procedure", policy: &azcosmos.ConflictResolutionPolicy{Mode: custom, ResolutionProcedure: "dbs/db/colls/x/sprocs/p"}, wantErr: "cosmostest does not support a Custom conflict resolution policy with a merge procedure"},
		{name: "unknown mode", policy: &azcosmos.ConflictResolutionPolicy{Mode: "FirstWriterWins"}, wantErr: "The conflict resolution mode 'FirstWriterWins' is invalid"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "c" + string(rune('a'+i))
			props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, ConflictResolutionPolicy: tc.policy}
			resp, err := db.CreateContainer(ctx, props, nil)
			if tc.wantErr != "" {
				var re *azcore.ResponseError
				if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want 400 with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.ContainerProperties.ConflictResolutionPolicy; got == nil || *got != tc.want {
				t.Fatalf("create returned %+v, want %+v", got, tc.want)
			}
			cc, _ := db.NewContainer(id)
			read, err := cc.Read(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := read.ContainerProperties.ConflictResolutionPolicy; got == nil || *got != tc.want {
				t.Fatalf("read returned %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestConflictResolutionPolicyReplace: the policy cannot be changed after creation; replacing with
// the same policy, or without one, keeps it.
func TestConflictResolutionPolicyReplace(t *testing.T) {
	s := cosmostest.NewServer(t)
	client := newClient(t, s, nil)
	ctx := context.Background()
	cc := newContainer(t, client, "c", &azcosmos.ContainerProperties{
		PartitionKeyDefinition:   azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		ConflictResolutionPolicy: &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeCustom},
	})
	read, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	props := *read.ContainerProperties
	if _, err := cc.Replace(ctx, props, nil); err != nil {
		t.Fatalf("replace with the same policy: %v", err)
	}
	props.ConflictResolutionPolicy = nil
	resp, err := cc.Replace(ctx, props, nil)
	if err != nil {
		t.Fatalf("replace without a policy: %v", err)
	}
	if got := resp.ContainerProperties.ConflictResolutionPolicy; got == nil || got.Mode != azcosmos.ConflictResolutionModeCustom {
		t.Fatalf("replace without a policy returned %+v, want the stored Custom policy", got)
	}
	props.ConflictResolutionPolicy = &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: "/version"}
	_, err = cc.Replace(ctx, props, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "Updating conflict resolution policy is currently not supported") {
		t.Fatalf("changing the policy: %v, want 400", err)
	}
}
