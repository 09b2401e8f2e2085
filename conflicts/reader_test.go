package conflicts_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/conflicts"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

var quiet = slog.New(slog.DiscardHandler)

// kit starts a server and a cosmoskit client with a Custom-mode container db/c.
func kit(t *testing.T, cfg cosmoskit.Config, opts ...cosmostest.Option) (*cosmostest.Server, *cosmoskit.Client) {
	t.Helper()
	s := cosmostest.NewServer(t, opts...)
	cfg.Endpoint = s.Endpoint()
	if cfg.Credential == nil && cfg.Key == "" {
		cfg.Key = s.Key()
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	c, err := cosmoskit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, ConflictResolution: cosmoskit.ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom}}
	if _, err := c.EnsureContainer(context.Background(), "db", spec); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func collect(t *testing.T, r *conflicts.Reader) ([]conflicts.Conflict, error) {
	t.Helper()
	var out []conflicts.Conflict
	for c, err := range r.All(context.Background()) {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func TestNewRefuses(t *testing.T) {
	_, c := kit(t, cosmoskit.Config{})
	for name, tc := range map[string]struct {
		client    *cosmoskit.Client
		db, coll  string
		opts      conflicts.Options
		wantField string
	}{
		"nil client":     {nil, "db", "c", conflicts.Options{}, "client"},
		"no database":    {c, "", "c", conflicts.Options{}, "database"},
		"no container":   {c, "db", "", conflicts.Options{}, "container"},
		"negative pages": {c, "db", "c", conflicts.Options{PageSize: -1}, "Options.PageSize"},
	} {
		_, err := conflicts.New(tc.client, tc.db, tc.coll, tc.opts)
		var ve *cosmoserr.ValidationError
		if !errors.Is(err, cosmoserr.ErrValidation) || !errors.As(err, &ve) || ve.Field != tc.wantField {
			t.Errorf("%s: %v, want a ValidationError for %s", name, err, tc.wantField)
		}
	}
	if _, err := conflicts.New(cosmoskit.NewFromClient(c.Cosmos()), "db", "c", conflicts.Options{}); !errors.Is(err, cosmoserr.ErrNoCredential) {
		t.Errorf("NewFromClient: %v, want ErrNoCredential", err)
	}
	closed, err := cosmoskit.New(cosmoskit.Config{Endpoint: c.Endpoint(), Key: cosmoskit.EmulatorKey, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	if _, err := conflicts.New(closed, "db", "c", conflicts.Options{}); !errors.Is(err, cosmoserr.ErrClosed) {
		t.Errorf("closed client: %v, want ErrClosed", err)
	}
	r, err := conflicts.New(c, "db", "c", conflicts.Options{PageSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if r.Options().PageSize != 7 {
		t.Errorf("Options() = %+v", r.Options())
	}
}

// TestEmptyFeed: a container without conflicts lists none; reading and deleting an unknown conflict
// is ErrNotFound; a missing container is an error naming the operation. The server counts the
// requests as conflicts requests (the signature's resource type).
func TestEmptyFeed(t *testing.T) {
	s, c := kit(t, cosmoskit.Config{})
	r, err := conflicts.New(c, "db", "c", conflicts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(t, r)
	if err != nil || len(got) != 0 {
		t.Fatalf("All = %v, %v; want nothing", got, err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadConflicts}); n != 1 {
		t.Errorf("%d conflict feed reads, want 1", n)
	}
	ctx := context.Background()
	if _, err := r.Read(ctx, "nope"); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Errorf("Read unknown: %v, want ErrNotFound", err)
	}
	if err := r.Delete(ctx, conflicts.Conflict{ID: "nope"}); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Errorf("Delete unknown: %v, want ErrNotFound", err)
	}
	if err := r.Delete(ctx, conflicts.Conflict{}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("Delete without id: %v, want ErrValidation", err)
	}
	missing, err := conflicts.New(c, "db", "missing", conflicts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect(t, missing)
	var ce *cosmoserr.Error
	if !errors.As(err, &ce) || ce.Operation != cosmoserr.OpReadConflicts || !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Errorf("missing container: %v, want a read_conflicts ErrNotFound", err)
	}
}

// jwt is a TokenCredential returning an unsigned JWT within its lifetime.
type jwt struct{}

func (jwt) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	enc := base64.RawURLEncoding.EncodeToString
	exp := time.Now().Add(time.Hour)
	claims := `{"aud":"` + strings.Join(o.Scopes, " ") + `","exp":` + itoa(exp.Unix()) + `}`
	return azcore.AccessToken{Token: enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(claims)) + ".c2ln", ExpiresOn: exp}, nil
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// TestEntraID: a client with a TokenCredential reads the feed with "type=aad" authorization; a
// server that refuses tokens answers 401.
func TestEntraID(t *testing.T) {
	_, c := kit(t, cosmoskit.Config{Credential: jwt{}}, cosmostest.WithAADTokens())
	r, err := conflicts.New(c, "db", "c", conflicts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, r); err != nil {
		t.Fatalf("All with an Entra ID token: %v", err)
	}
}

// TestSecretsStayOut: with the wrong key, the reader's error and the client's logs (at Debug)
// carry neither the key nor the signature sent.
func TestSecretsStayOut(t *testing.T) {
	s := cosmostest.NewServer(t)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	wrongKey := base64.StdEncoding.EncodeToString([]byte("not the key of this account, 64 bytes long....................."))
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: wrongKey, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := conflicts.New(c, "db", "c", conflicts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect(t, r)
	if !errors.Is(err, cosmoserr.ErrUnauthorized) {
		t.Fatalf("wrong key: %v, want ErrUnauthorized", err)
	}
	for what, text := range map[string]string{"error": err.Error(), "logs": logs.String()} {
		for _, secret := range []string{wrongKey, s.Key(), "sig=", "sig%3D"} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s contain %q:\n%s", what, secret, text)
			}
		}
	}
	if logs.Len() == 0 {
		t.Error("nothing was logged: the test cannot see a leak")
	}
}

// TestPipeline: the reader's requests run through the client's cosmoskit policies: a 429 on the
// feed is retried after its retry-after by the retry policy, and the diagnostics policy logs a
// failed read under the conflicts operation's name.
func TestPipeline(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, c := kit(t, cosmoskit.Config{Logger: logger})
	r, err := conflicts.New(c, "db", "c", conflicts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.InjectFault(cosmostest.Fault{ResourceType: cosmostest.ResourceConflict, Status: 429, RetryAfter: time.Millisecond, Times: 1})
	s.ResetRequests()
	if _, err := collect(t, r); err != nil {
		t.Fatalf("All after one 429: %v", err)
	}
	if n := s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceConflict}); n != 2 {
		t.Errorf("%d conflicts requests, want 2 (a 429 and its retry)", n)
	}
	if _, err := r.Read(context.Background(), "nope"); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("Read unknown: %v", err)
	}
	if !strings.Contains(logs.String(), "read_conflict") {
		t.Errorf("the diagnostics policy did not log the failed read_conflict:\n%s", logs.String())
	}
}
