package repository_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// The printed error of a failed repository call names the operation, the resource (database,
// container, type, id), the status and sub-status and the activity id once each.
func TestErrorMessageNamesEachLayerOnce(t *testing.T) {
	e := newEnv(t)
	orders := newOrders(t, e.container)
	_, err := orders.Get(context.Background(), pk("c1"), "nope")
	var ce *cosmoserr.Error
	if !errors.As(err, &ce) || ce.ActivityID == "" {
		t.Fatalf("Get: %v", err)
	}
	want := fmt.Sprintf(`cosmoskit: read_item db/c order "nope": 404 Not Found (sub-status 0, activity id %s, %s RU)`,
		ce.ActivityID, strconv.FormatFloat(ce.RequestCharge, 'f', -1, 64))
	if ce.Message != "" {
		want += ": " + ce.Message
	}
	if got := err.Error(); got != want {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}
	for _, s := range []string{"read_item", "cosmoskit:", "404", ce.ActivityID, `"nope"`} {
		if n := strings.Count(err.Error(), s); n != 1 {
			t.Errorf("%q appears %d times in %q", s, n, err.Error())
		}
	}
	var oe *repository.OpError
	if !errors.As(err, &oe) || oe.Op != cosmoserr.OpReadItem || oe.Type != "order" || oe.ID != "nope" {
		t.Errorf("OpError = %+v", oe)
	}
	if !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Error("not ErrNotFound")
	}
}

// An OpError around an error that is not a *cosmoserr.Error still names each part once.
func TestOpErrorOtherCause(t *testing.T) {
	err := &repository.OpError{Op: "read_item", Type: "order", ID: "x", Err: context.Canceled}
	if got, want := err.Error(), `cosmoskit: read_item order "x": context canceled`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// A batch operation's status matches the same sentinels as any other error (401, 503 were missing).
func TestBatchErrorSentinels(t *testing.T) {
	tests := []struct {
		status int
		want   error
	}{
		{400, cosmoserr.ErrBadRequest}, {401, cosmoserr.ErrUnauthorized}, {404, cosmoserr.ErrNotFound},
		{409, cosmoserr.ErrConflict}, {412, cosmoserr.ErrPreconditionFailed}, {429, cosmoserr.ErrThrottled},
		{503, cosmoserr.ErrUnavailable}, {500, nil},
	}
	all := []error{cosmoserr.ErrBadRequest, cosmoserr.ErrUnauthorized, cosmoserr.ErrNotFound, cosmoserr.ErrConflict,
		cosmoserr.ErrPreconditionFailed, cosmoserr.ErrThrottled, cosmoserr.ErrUnavailable}
	for _, tt := range tests {
		err := &repository.BatchError{Index: 0, StatusCode: tt.status, Type: "order"}
		for _, s := range all {
			if got := errors.Is(err, s); got != (s == tt.want) { //nolint:errorlint // identity of sentinels is the point
				t.Errorf("status %d: errors.Is(%v) = %v", tt.status, s, got)
			}
		}
	}
}

// Package repository wraps a plain *azcosmos.ContainerClient without linking the client factory
// and its credentials; cosmoserr links neither OpenTelemetry nor azidentity.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for pkg, banned := range map[string][]string{
		"github.com/cosmoskit/cosmoskit-go/repository": {"github.com/cosmoskit/cosmoskit-go/cosmoskit", "azidentity", "microsoft-authentication-library"},
		"github.com/cosmoskit/cosmoskit-go/cosmoserr":  {"go.opentelemetry.io", "azidentity", "microsoft-authentication-library", "github.com/cosmoskit/cosmoskit-go/diagnostics"},
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if dep == b || strings.Contains(dep, "/"+b) || strings.HasPrefix(dep, b) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
