package cosmostest

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Data Explorer: a web UI over the server's data and its fault and region controls. It is one
// embedded set of static files (explorer/: HTML, CSS and plain JavaScript, no library, no build
// step, nothing fetched from elsewhere) and the JSON endpoints under api/ (explorer_api.go,
// explorer_controls.go).
//
// Security: the explorer is off unless asked for (WithExplorer, ExplorerHandler, or the binary's
// --explorer). Every api/ request needs "Authorization: Bearer <control token>", compared in
// constant time; the account key is never accepted as the token and never reaches the browser.
// The static files hold no data and are served without the token: the page asks for the token
// (or reads it from the URL fragment, which browsers never send to a server) and keeps it in the
// tab's sessionStorage. A token in a header, not a cookie, means another site's page cannot make
// the browser send it (no CSRF). Every answer carries a strict Content-Security-Policy (scripts
// and styles from the explorer itself only, no inline script, no framing), and the page renders
// every value with textContent, never as HTML.

//go:embed explorer
var explorerFiles embed.FS

// explorerCSP is the Content-Security-Policy of every explorer answer.
const explorerCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// WithExplorer serves the Data Explorer on its own loopback listener (plain HTTP on 127.0.0.1, a
// free port) for the server's lifetime; ExplorerURL returns its address. Its JSON endpoints need
// "Authorization: Bearer <controlToken>": the page asks for the token once per tab. controlToken
// must not be empty nor the account key (Start refuses both). Under NewServer, a test that fails
// logs the explorer's URL; with COSMOSTEST_EXPLORER_HOLD set to a Go duration (such as 10m) the
// failed test then keeps the server up that long so a person can look (run go test with a
// -timeout above it). Default: no explorer.
func WithExplorer(controlToken string) Option {
	return func(c *config) { c.explorer, c.explorerToken = true, controlToken }
}

// EnvExplorerHold names the environment variable that keeps a failed test's server up for the
// duration it holds, so the Data Explorer can be opened (WithExplorer).
const EnvExplorerHold = "COSMOSTEST_EXPLORER_HOLD"

// ExplorerURL returns the Data Explorer's address, "http://127.0.0.1:PORT/", or "" when the server
// was started without WithExplorer. The URL holds no token.
func (s *Server) ExplorerURL() string {
	if s.s.explorer == nil {
		return ""
	}
	return "http://" + s.s.explorer.addr + "/"
}

// ExplorerHandler returns the Data Explorer as an http.Handler, for a program that serves it on a
// listener of its own (cmd/cosmostest mounts it on its control port). Its links are relative, so it
// may be mounted under a path prefix with http.StripPrefix. controlToken is the bearer token its
// JSON endpoints require; an empty token, or the account key, is an error.
func (s *Server) ExplorerHandler(controlToken string) (http.Handler, error) {
	return s.s.newExplorer(controlToken)
}

// explorer serves the Data Explorer of one server.
type explorer struct {
	srv    *server
	token  []byte
	static http.Handler

	mu     sync.Mutex
	faults map[*FaultHandle]string // ids shown for installed faults, assigned as first listed
	next   int
}

func (srv *server) newExplorer(token string) (*explorer, error) {
	if token == "" {
		return nil, errors.New("cosmostest: the Data Explorer needs a control token")
	}
	if token == srv.cfg.key {
		return nil, errors.New("cosmostest: the Data Explorer's control token must not be the account key")
	}
	sub, err := fs.Sub(explorerFiles, "explorer")
	if err != nil {
		return nil, err
	}
	return &explorer{srv: srv, token: []byte(token), static: http.FileServerFS(sub), faults: map[*FaultHandle]string{}}, nil
}

func (e *explorer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", explorerCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	path := strings.TrimPrefix(r.URL.Path, "/")
	api, isAPI := strings.CutPrefix(path, "api/")
	if !isAPI && path != "api" {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeExplorerJSON(w, http.StatusMethodNotAllowed, &explorerError{Status: http.StatusMethodNotAllowed, Message: "explorer: the page is read with GET"})
			return
		}
		e.static.ServeHTTP(w, r)
		return
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), e.token) != 1 {
		writeExplorerJSON(w, http.StatusUnauthorized, &explorerError{Status: http.StatusUnauthorized,
			Message: "explorer: the Data Explorer needs Authorization: Bearer <control token>"})
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodDelete && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		writeExplorerJSON(w, http.StatusUnsupportedMediaType, refuse("a request body is JSON (Content-Type: application/json)"))
		return
	}
	status, out, err := e.route(r, api)
	if err != nil {
		var xe *explorerError
		if !errors.As(err, &xe) {
			xe = &explorerError{Status: http.StatusBadGateway, Message: "explorer: " + err.Error()}
		}
		if xe.Status < 400 { // an answer the explorer did not expect: never passed on as a success
			xe = &explorerError{Status: http.StatusBadGateway, Message: fmt.Sprintf("explorer: the gateway answered %d: %s", xe.Status, xe.Message)}
		}
		writeExplorerJSON(w, xe.Status, xe)
		return
	}
	writeExplorerJSON(w, status, out)
}

func writeExplorerJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"status":500,"error":"explorer: cannot render the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decodeBody reads a JSON request body of at most 4 MB into v, refusing unknown fields.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 4<<20))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return refuse("body: %v", err)
	}
	return nil
}

// explorerListener is WithExplorer's listener.
type explorerListener struct {
	addr string
	hs   *http.Server
}

// startExplorer opens WithExplorer's listener; Start calls it once the regions listen.
func (srv *server) startExplorer() error {
	if !srv.cfg.explorer {
		return nil
	}
	e, err := srv.newExplorer(srv.cfg.explorerToken)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("cosmostest: Data Explorer: %w", err)
	}
	hs := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	srv.explorer = &explorerListener{addr: ln.Addr().String(), hs: hs}
	go func() { _ = hs.Serve(ln) }()
	return nil
}

// stopExplorer closes WithExplorer's listener; closeAll calls it.
func (srv *server) stopExplorer() {
	if srv.explorer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		defer cancel()
		_ = srv.explorer.hs.Shutdown(ctx)
		_ = srv.explorer.hs.Close()
	}
}

// explorerOnFailure is registered by NewServer to run before Close: when tb failed, it logs the
// explorer's URL and holds the server up for COSMOSTEST_EXPLORER_HOLD.
func (s *Server) explorerOnFailure(tb testing.TB) {
	if s.s.explorer == nil || !tb.Failed() {
		return
	}
	hold, _ := time.ParseDuration(os.Getenv(EnvExplorerHold))
	if hold <= 0 {
		tb.Logf("cosmostest: Data Explorer at %s (control token: the one given to WithExplorer); set %s=10m to keep a failed test's server up",
			s.ExplorerURL(), EnvExplorerHold)
		return
	}
	tb.Logf("cosmostest: Data Explorer at %s (control token: the one given to WithExplorer); holding the server up for %s (%s)",
		s.ExplorerURL(), hold, EnvExplorerHold)
	time.Sleep(hold)
}
