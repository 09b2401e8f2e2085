package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

// The web service of part 1: user profiles, one container partitioned by id.
const (
	profilesContainer = "profiles"
	// sessionCookie carries the profiles container's session token between the instances.
	sessionCookie = "profiles-session"
	// chargeHeader is where the handlers report the request units of their Cosmos DB call.
	chargeHeader = "X-Request-Charge"
)

// profile is the service's document.
type profile struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// routes returns the instance's HTTP handler: GET and PUT /profiles/{id}, behind withSession.
func (in *instance) routes(db string) (http.Handler, error) {
	c, err := in.client.Container(db, profilesContainer)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /profiles/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		resp, err := c.ReadItem(r.Context(), azcosmos.NewPartitionKeyString(id), id, nil)
		if err != nil {
			httpError(w, err)
			return
		}
		var p profile
		if err := json.Unmarshal(resp.Value, &p); err != nil {
			http.Error(w, "bad document", http.StatusInternalServerError)
			return
		}
		w.Header().Set(chargeHeader, fmt.Sprintf("%.2f", resp.RequestCharge))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p)
	})
	mux.HandleFunc("PUT /profiles/{id}", func(w http.ResponseWriter, r *http.Request) {
		var p profile
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&p); err != nil || p.Name == "" {
			http.Error(w, "want {\"name\": \"...\"}", http.StatusBadRequest)
			return
		}
		p.ID = r.PathValue("id")
		body, err := json.Marshal(p)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		resp, err := c.UpsertItem(r.Context(), azcosmos.NewPartitionKeyString(p.ID), body, nil)
		if err != nil {
			httpError(w, err)
			return
		}
		w.Header().Set(chargeHeader, fmt.Sprintf("%.2f", resp.RequestCharge))
		w.WriteHeader(http.StatusNoContent)
	})
	return withSession(db, profilesContainer, mux), nil
}

// httpError answers a Cosmos DB error: its 404 as 404, anything else as 502.
func httpError(w http.ResponseWriter, err error) {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode == http.StatusNotFound {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	http.Error(w, "database error", http.StatusBadGateway)
}

// cookieKey signs the session cookie. A session token only orders reads, but a forged one (a
// huge LSN) makes every read of the user wait in its region and then go to the write region, so
// the instances accept only the tokens they issued. Every instance of the service shares the key
// (from its configuration in production; random per run here).
var cookieKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}()

// signCookie returns "<token>.<HMAC-SHA256 of the token>".
func signCookie(token string) string {
	m := hmac.New(sha256.New, cookieKey)
	m.Write([]byte(token))
	return token + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// openCookie returns the token of a cookie signCookie made, and false for anything else.
func openCookie(v string) (string, bool) {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return "", false
	}
	token := v[:i]
	return token, hmac.Equal([]byte(signCookie(token)), []byte(v))
}

// cookieToken is the session token a cookie carries, for printing.
func cookieToken(v string) string {
	if t, ok := openCookie(v); ok {
		return t
	}
	return v
}

// withSession is the cookie helper of the hand-off (as in package consistency's cookie example):
// it sends the session token of the request's cookie with the handler's reads of the container,
// answering a malformed cookie with 400 before any Cosmos DB call, and returns the token of the
// handler's writes and reads in the cookie, so the user's next request reads their own writes on
// whichever instance, in whichever region, it lands.
func withSession(db, container string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if c, err := r.Cookie(sessionCookie); err == nil {
			token, ok := openCookie(c.Value)
			if !ok {
				http.Error(w, "bad session cookie", http.StatusBadRequest)
				return
			}
			if ctx, err = consistency.WithSessionToken(ctx, db, container, token); err != nil {
				http.Error(w, "bad session cookie", http.StatusBadRequest)
				return
			}
		}
		ctx, s := consistency.Capture(ctx)
		next.ServeHTTP(&sessionWriter{ResponseWriter: w, s: s, db: db, container: container}, r.WithContext(ctx))
	})
}

// sessionWriter sets the cookie just before the response header goes out.
type sessionWriter struct {
	http.ResponseWriter
	s             *consistency.Session
	db, container string
	done          bool
}

func (w *sessionWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		if tok := w.s.Token(w.db, w.container); tok != "" {
			http.SetCookie(w.ResponseWriter, &http.Cookie{Name: sessionCookie, Value: signCookie(tok), Path: "/", HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// result is an HTTP answer of an instance, and where its Cosmos DB requests went.
type result struct {
	code     int
	name     string // the profile's name, for a GET answered 200
	charge   string
	cookie   string // the session cookie the answer set, "" if none
	attempts *attempts
}

// call sends one request to the instance's handler, as the load balancer would, with the session
// cookie if one is given.
func (in *instance) call(ctx context.Context, method, path, body, cookie string) result {
	ctx, att := withAttempts(ctx)
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	}
	rec := httptest.NewRecorder()
	in.handler.ServeHTTP(rec, req)
	res := result{code: rec.Code, charge: rec.Header().Get(chargeHeader), attempts: att}
	if method == http.MethodGet && rec.Code == http.StatusOK {
		var p profile
		if json.Unmarshal(rec.Body.Bytes(), &p) == nil {
			res.name = p.Name
		}
	} else if rec.Code >= 400 {
		res.name = strings.TrimSpace(rec.Body.String())
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == sessionCookie {
			res.cookie = c.Value
		}
	}
	return res
}

// handoff is part 1.
func (d *demo) handoff(ctx context.Context, acct *account) error {
	d.say("1. session-token hand-off between two instances\n")
	prov, err := cosmoskit.New(acct.cfg)
	if err != nil {
		return err
	}
	defer prov.Close()
	if _, err := prov.EnsureContainer(ctx, d.db, cosmoskit.ContainerSpec{ID: profilesContainer, PartitionKeyPaths: []string{"/id"}}); err != nil {
		return err
	}
	a, err := acct.instance("A", acct.preferA)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := acct.instance("B", acct.preferB)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, in := range []*instance{a, b} {
		if in.handler, err = in.routes(d.db); err != nil {
			return err
		}
	}
	d.say("  instance A prefers %s; instance B prefers %s\n", regionList(a.prefer), regionList(b.prefer))

	const path, before, after = "/profiles/u1", "Ada", "Ada Lovelace"
	if r := a.call(ctx, http.MethodPut, path, `{"name":"`+before+`"}`, ""); r.code != http.StatusNoContent {
		return fmt.Errorf("setup: PUT %s: %d %s", path, r.code, r.name)
	}
	if acct.srv != nil {
		acct.advance(demoLag)
		d.say("  setup: A stored u1 with name %q; the server clock moves %v: both regions have it\n", before, demoLag)
	} else {
		d.say("  setup: A stored u1 with name %q\n", before)
	}

	w := a.call(ctx, http.MethodPut, path, `{"name":"`+after+`"}`, "")
	if w.code != http.StatusNoContent || w.cookie == "" {
		return fmt.Errorf("PUT %s on A: %d %s (session cookie %q)", path, w.code, w.name, w.cookie)
	}
	d.say("  A  PUT %s {\"name\":%q}: %d, written in %s, %s RU; session cookie %s\n", path, after, w.code, w.attempts.last(acct), w.charge, cookieToken(w.cookie))

	read := func(label, cookie string) error {
		r := b.call(ctx, http.MethodGet, path, "", cookie)
		if r.code == http.StatusOK {
			fresh := "stale"
			if r.name == after {
				fresh = "fresh"
			}
			d.say("  B  GET %s %s: %d %q (%s), read in %s, %s RU; session cookie %s\n", path, label, r.code, r.name, fresh, r.attempts.describe(acct), r.charge, cookieToken(r.cookie))
			return nil
		}
		d.say("  B  GET %s %s: %d %s, %s\n", path, label, r.code, r.name, r.attempts.describe(acct))
		if r.code != http.StatusBadRequest {
			return fmt.Errorf("GET %s on B %s: %d %s", path, label, r.code, r.name)
		}
		return nil
	}
	if err := read("without the cookie", ""); err != nil {
		return err
	}
	if err := read("with A's cookie", w.cookie); err != nil {
		return err
	}
	if err := read("with a malformed cookie", "not-a-session-token"); err != nil {
		return err
	}
	// A well-formed token the instances did not sign (a user asking for an LSN far ahead).
	if err := read("with a forged cookie", "0:-1#999999999"); err != nil {
		return err
	}
	if acct.srv != nil {
		acct.advance(demoLag)
		d.say("  the server clock moves %v: East US has caught up\n", demoLag)
		if err := read("without the cookie", ""); err != nil {
			return err
		}
	}
	return nil
}

// regionList prints a region list, "the account's order" when empty.
func regionList(regions []string) string {
	if len(regions) == 0 {
		return "the account's regions in the account's order"
	}
	return strings.Join(regions, ", ")
}
