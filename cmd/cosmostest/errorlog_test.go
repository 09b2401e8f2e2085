package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the writes of several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// stdLog sends the standard logger's output (where net/http writes without an ErrorLog: the
// process's stderr, unformatted) to a buffer for the rest of the test.
func stdLog(t *testing.T) *syncBuffer {
	t.Helper()
	buf := &syncBuffer{}
	prev := log.Writer()
	log.SetOutput(buf)
	t.Cleanup(func() { log.SetOutput(prev) })
	return buf
}

// runLogged runs the command in process with args, its log output (the process's stderr) going to
// the returned buffer, and returns the listening port once it has started.
func runLogged(t *testing.T, args []string) (port string, stderr *syncBuffer) {
	t.Helper()
	stderr = &syncBuffer{}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, pw, stderr)
		_ = pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("run did not return within 10s of cancel")
		}
	})
	sc := bufio.NewScanner(pr)
	re := regexp.MustCompile(`listening on https://[^ ]*:(\d+)/`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			port = m[1]
		}
		if strings.Contains(sc.Text(), "Started") {
			go func() { _, _ = io.Copy(io.Discard, pr) }()
			return port, stderr
		}
	}
	t.Fatal("output ended before Started")
	return "", nil
}

// refuseHandshake sends bytes that are not a TLS handshake to port and reads until the server
// closes the connection (after logging the failed handshake); it returns the connection's local
// address, which the log line names.
func refuseHandshake(t *testing.T, port string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte{0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, conn)
	return conn.LocalAddr().String()
}

// TestNoHandshakeNoiseOnStderr: a client closing before its TLS handshake is not reported on
// stderr by net/http ("http: TLS handshake error from ..."); it is a debug record of the
// command's logger, shown with --log-level debug and not at the default level.
func TestNoHandshakeNoiseOnStderr(t *testing.T) {
	std := stdLog(t)
	for _, tc := range []struct {
		level string
		shown bool
	}{{"debug", true}, {"info", false}} {
		port, stderr := runLogged(t, []string{"--port", "0", "--protocol", "https", "--log-level", tc.level})
		from := refuseHandshake(t, port)
		var line string
		for l := range strings.SplitSeq(stderr.String(), "\n") {
			if strings.Contains(l, "TLS handshake error from "+from) {
				line = l
			}
		}
		switch {
		case tc.shown && !strings.Contains(line, "level=DEBUG"):
			t.Errorf("--log-level %s: no debug record of the failed handshake from %s; stderr:\n%s", tc.level, from, stderr)
		case !tc.shown && line != "":
			t.Errorf("--log-level %s: the failed handshake is logged: %q", tc.level, line)
		}
		if strings.Contains(std.String(), from) {
			t.Errorf("--log-level %s: net/http wrote the failed handshake to stderr: %q", tc.level, std)
		}
	}
}

// TestControlServerErrorLog: what net/http reports about the control API's connections goes to
// the command's logger at info level, not to stderr through the standard logger.
func TestControlServerErrorLog(t *testing.T) {
	std := stdLog(t)
	var out syncBuffer
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	hs := controlServer(nil, logger)
	if hs.ErrorLog == nil {
		t.Fatal("the control server has no ErrorLog: net/http would write to stderr")
	}
	hs.ErrorLog.Printf("http: panic serving 127.0.0.1:1: boom")
	if got := out.String(); !strings.Contains(got, "level=INFO") || !strings.Contains(got, "panic serving 127.0.0.1:1") {
		t.Errorf("logger got %q, want an info record of the line", got)
	}
	if got := std.String(); got != "" {
		t.Errorf("the standard logger got %q", got)
	}
	if hs.ReadHeaderTimeout != 10*time.Second {
		t.Errorf("ReadHeaderTimeout = %v", hs.ReadHeaderTimeout)
	}
}
