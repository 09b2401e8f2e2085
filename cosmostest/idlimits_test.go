package cosmostest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// bodyOf returns the error body of an SDK error ("" for nil or another error).
func bodyOf(err error) string {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.RawResponse == nil {
		return ""
	}
	b, _ := io.ReadAll(re.RawResponse.Body)
	return string(b)
}

// rawPost sends a master-key signed POST of body to path (resourceType and link as signed) and
// returns the status and the error body's message.
func rawPost(t *testing.T, s *cosmostest.Server, path, resourceType, link string, body []byte) (int, string) {
	t.Helper()
	key, _ := base64.StdEncoding.DecodeString(s.Key())
	req, err := http.NewRequest(http.MethodPost, s.Endpoint()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set(wire.HeaderDate, date)
	req.Header.Set(wire.HeaderVersion, wire.APIVersion)
	req.Header.Set(wire.HeaderContentType, "application/json")
	req.Header.Set(wire.HeaderAuthorization, wire.MasterKeyAuthorization(key, http.MethodPost, resourceType, link, date))
	resp, err := (&http.Client{Transport: s.ClientOptions().Transport.(*http.Client).Transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Message
}

// TestResourceIDLimits: database and container ids follow the service's documented limits (255
// characters, counted as characters: 255 three-byte characters are fine, 256 one-byte ones are
// 400; none of / \ ? #; no trailing space), item ids 1,023 bytes, through the real azcosmos
// client. The 400 bodies read as the service's: the id quoted, the limit named.
func TestResourceIDLimits(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t)
	c := newClient(t, s, nil)
	pkDef := azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}

	atLimit := strings.Repeat("€", 255) // 765 bytes
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: atLimit}, nil); err != nil {
		t.Fatalf("255-character database id: %v", err)
	}
	db, _ := c.NewDatabase(atLimit)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: atLimit, PartitionKeyDefinition: pkDef}, nil); err != nil {
		t.Fatalf("255-character container id: %v", err)
	}
	cc, _ := db.NewContainer(atLimit)
	if _, err := cc.Read(ctx, nil); err != nil {
		t.Fatalf("reading the 255-character container back: %v", err)
	}

	const limit = "less than '255' characters"
	for _, tc := range []struct{ name, id, reason string }{
		{"256 characters", strings.Repeat("a", 256), "is 256 characters; at most 255"},
		{"300 characters", strings.Repeat("é", 300), "is 300 characters; at most 255"},
		{"slash", "secret/x", `contains one of / \ ? #`},
		{"backslash", `secret\x`, `contains one of / \ ? #`},
		{"question mark", "secret?x", `contains one of / \ ? #`},
		{"hash", "secret#x", `contains one of / \ ? #`},
		{"trailing space", "secret-x ", "ends with a space"},
	} {
		// azcosmos v1.5.0 cannot marshal an id with a backslash (its MarshalJSON writes the id
		// unescaped), so the creates go out as raw signed requests with the SDK's bodies.
		body, _ := json.Marshal(map[string]any{"id": tc.id})
		quoted := "The input name '" + tc.id + "' is invalid."
		st, b := rawPost(t, s, "dbs", "dbs", "", body)
		if st != http.StatusBadRequest || !strings.HasPrefix(b, quoted) || !strings.Contains(b, limit) || !strings.Contains(b, tc.reason) {
			t.Errorf("database %s: %d %s, want 400 with %q, %q and %q", tc.name, st, b, quoted, limit, tc.reason)
		}
		body, _ = json.Marshal(map[string]any{"id": tc.id, "partitionKey": map[string]any{"paths": []string{"/pk"}, "kind": "Hash", "version": 2}})
		st, b = rawPost(t, s, "dbs/"+url.PathEscape(atLimit)+"/colls", "colls", "dbs/"+atLimit, body)
		if st != http.StatusBadRequest || !strings.HasPrefix(b, quoted) || !strings.Contains(b, limit) || !strings.Contains(b, tc.reason) {
			t.Errorf("container %s: %d %s, want 400 with %q, %q and %q", tc.name, st, b, quoted, limit, tc.reason)
		}
	}
	_, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: strings.Repeat("é", 256), PartitionKeyDefinition: pkDef}, nil)
	if st, _ := status(t, err); st != http.StatusBadRequest {
		t.Errorf("azcosmos CreateContainer with a 256-character id: %v, want 400", err)
	}

	// Item ids: 1,023 bytes (341 three-byte characters) is fine, 1,024 bytes is 400.
	pk := azcosmos.NewPartitionKeyString("p")
	ok := strings.Repeat("€", 341)
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"`+ok+`","pk":"p"}`), nil); err != nil {
		t.Fatalf("1,023-byte item id: %v", err)
	}
	long := strings.Repeat("a", 1024)
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"`+long+`","pk":"p"}`), nil)
	if st, _ := status(t, err); st != http.StatusBadRequest {
		t.Errorf("1,024-byte item id: %v, want 400", err)
	} else if b := bodyOf(err); !strings.Contains(b, "less than '1024' characters") || !strings.Contains(b, "1024 bytes, more than 1023") {
		t.Errorf("1,024-byte item id: body %s", b)
	}
}
