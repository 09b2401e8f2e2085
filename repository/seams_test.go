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
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/retry"
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
	if !errors.Is(err, repository.ErrNotFound) {
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
		{400, repository.ErrBadRequest}, {401, repository.ErrUnauthorized}, {404, repository.ErrNotFound},
		{409, repository.ErrConflict}, {412, repository.ErrPreconditionFailed}, {429, repository.ErrThrottled},
		{503, repository.ErrUnavailable}, {500, nil},
	}
	all := []error{repository.ErrBadRequest, repository.ErrUnauthorized, repository.ErrNotFound, repository.ErrConflict,
		repository.ErrPreconditionFailed, repository.ErrThrottled, repository.ErrUnavailable}
	for _, tt := range tests {
		err := &repository.BatchError{Index: 0, StatusCode: tt.status, Type: "order"}
		for _, s := range all {
			if got := errors.Is(err, s); got != (s == tt.want) { //nolint:errorlint // identity of sentinels is the point
				t.Errorf("status %d: errors.Is(%v) = %v", tt.status, s, got)
			}
		}
	}
}

// Every package's sentinel is the cosmoserr value itself, so errors.Is works with any name.
func TestSentinelsAreShared(t *testing.T) {
	groups := [][]error{
		{cosmoserr.ErrNotFound, diagnostics.ErrNotFound, cosmoskit.ErrNotFound, repository.ErrNotFound},
		{cosmoserr.ErrConflict, diagnostics.ErrConflict, cosmoskit.ErrConflict, repository.ErrConflict},
		{cosmoserr.ErrPreconditionFailed, diagnostics.ErrPreconditionFailed, cosmoskit.ErrPreconditionFailed, repository.ErrPreconditionFailed},
		{cosmoserr.ErrThrottled, diagnostics.ErrThrottled, cosmoskit.ErrThrottled, repository.ErrThrottled, retry.ErrThrottled},
		{cosmoserr.ErrUnavailable, diagnostics.ErrUnavailable, cosmoskit.ErrUnavailable, repository.ErrUnavailable},
		{cosmoserr.ErrBadRequest, diagnostics.ErrBadRequest, cosmoskit.ErrBadRequest, repository.ErrBadRequest},
		{cosmoserr.ErrUnauthorized, diagnostics.ErrUnauthorized, cosmoskit.ErrUnauthorized, repository.ErrUnauthorized},
		{cosmoserr.ErrInvalidToken, repository.ErrInvalidToken, crosspartition.ErrInvalidToken},
		{cosmoserr.ErrCircuitOpen, cosmoskit.ErrCircuitOpen, repository.ErrCircuitOpen, retry.ErrCircuitOpen}, //nolint:staticcheck // deprecated, still the same value everywhere
	}
	for _, g := range groups {
		for _, s := range g[1:] {
			if s != g[0] { //nolint:errorlint // identity is the point
				t.Errorf("%v is not the cosmoserr value", s)
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
