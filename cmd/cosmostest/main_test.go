package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

var listeningRE = regexp.MustCompile(`listening on \w+://\[?[^ ]*?\]?:(\d+)/`)

// waitStarted reads lines from r until one contains "Started" and returns the listening port. The
// rest of r is drained in the background so the writer never blocks.
func waitStarted(t *testing.T, r io.Reader) (port string, lines <-chan string) {
	t.Helper()
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			default:
			}
		}
	}()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-ch:
			if !ok {
				t.Fatal("output ended before Started")
			}
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				port = m[1]
			}
			if strings.Contains(line, "Started") {
				if port == "" {
					t.Fatal("Started before a listening line")
				}
				return port, ch
			}
		case <-deadline:
			t.Fatal("no Started line within 20s")
		}
	}
}

// smoke creates a database, a container and an item through the real SDK, reads the item back and
// deletes the database.
func smoke(t *testing.T, endpoint, key string) error {
	t.Helper()
	return smokeWith(t, endpoint, key, &http.Client{Timeout: 10 * time.Second})
}

// smokeWith is smoke with the given HTTP client as the SDK's transport.
func smokeWith(t *testing.T, endpoint, key string, transport *http.Client) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cred, err := azcosmos.NewKeyCredential(key)
	if err != nil {
		return err
	}
	client, err := azcosmos.NewClientWithKey(endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: transport},
	})
	if err != nil {
		return err
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		return err
	}
	db, err := client.NewDatabase("db")
	if err != nil {
		return err
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}, nil); err != nil {
		return err
	}
	c, err := db.NewContainer("c")
	if err != nil {
		return err
	}
	pk := azcosmos.NewPartitionKeyString("p1")
	if _, err := c.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p1","n":1}`), nil); err != nil {
		return err
	}
	got, err := c.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		return err
	}
	if !strings.Contains(string(got.Value), `"n":1`) {
		t.Errorf("read back %s", got.Value)
	}
	_, err = db.Delete(ctx, nil)
	return err
}

// startRun runs the command in process with args and env and waits for Started. It returns the
// listening port and a stop function that cancels the run and returns its error.
func startRun(t *testing.T, args []string, env map[string]string) (port string, stop func() error) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, func(k string) string { return env[k] }, pw, io.Discard)
		_ = pw.Close()
	}()
	port, _ = waitStarted(t, pr)
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return errors.New("run did not return within 10s of cancel")
		}
	}
	t.Cleanup(func() { _ = stop() })
	return port, stop
}

// TestRun runs the command in process: ignored emulator flags, Started, the SDK works against the
// advertised endpoint, and cancelling the context returns nil.
func TestRun(t *testing.T) {
	port, stop := startRun(t, []string{"--port", "0", "--enable-explorer", "false", "--log-level", "quiet", "--partitions", "3"}, nil)
	if err := smoke(t, "http://127.0.0.1:"+port+"/", wire.EmulatorKey); err != nil {
		t.Errorf("SDK against the command: %v", err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// TestRunHTTPS: --protocol https serves TLS with the server's generated certificate (which a client
// must be told to accept, as with the emulator's).
func TestRunHTTPS(t *testing.T) {
	port, _ := startRun(t, []string{"--port", "0", "--protocol", "https", "--log-level", "quiet"}, nil)
	insecure := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the certificate is self-signed
	}}
	if err := smokeWith(t, "https://127.0.0.1:"+port+"/", wire.EmulatorKey, insecure); err != nil {
		t.Errorf("SDK over https: %v", err)
	}
	if err := smoke(t, "http://127.0.0.1:"+port+"/", wire.EmulatorKey); err == nil {
		t.Error("plain http against --protocol https succeeded")
	}
}

// TestRunKeyFile: the key from KEY_FILE is the one the server checks signatures with.
func TestRunKeyFile(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("a key that is not the emulator's"))
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port, _ := startRun(t, nil, map[string]string{"PORT": "0", "KEY_FILE": path, "LOG_LEVEL": "quiet"})
	endpoint := "http://127.0.0.1:" + port + "/"
	if err := smoke(t, endpoint, key); err != nil {
		t.Errorf("SDK with the key from the file: %v", err)
	}
	err := smoke(t, endpoint, wire.EmulatorKey)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusUnauthorized {
		t.Errorf("SDK with the emulator key against a server with another key: %v, want 401", err)
	}
}

func TestRunBadConfig(t *testing.T) {
	err := run(context.Background(), []string{"--protocol", "gopher"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "gopher") {
		t.Errorf("run with a bad protocol = %v", err)
	}
	err = run(context.Background(), []string{"--key-file", filepath.Join(t.TempDir(), "none")}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "key file") {
		t.Errorf("run with a missing key file = %v", err)
	}
	err = run(context.Background(), []string{"--port", "0", "--consistency", "linearizable"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "linearizable") || !strings.Contains(err.Error(), "BoundedStaleness") {
		t.Errorf("run with an unknown consistency level = %v", err)
	}
	err = run(context.Background(), []string{"--port", "0", "--export-cert", filepath.Join(t.TempDir(), "c.pem")}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--protocol https") {
		t.Errorf("run with --export-cert over http = %v", err)
	}
}

// TestBinary builds the command, runs it like the emulator image runs, drives it with the SDK and
// stops it with SIGTERM.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "cosmostest")
	// Same build flags as this test binary, so the build reuses its compiled packages; the static
	// CGO_ENABLED=0 build is what scripts/build-image.sh and the integration tests exercise.
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--enable-explorer", "false", "--explorer-port", "1234", "--enable-telemetry", "false")
	cmd.Env = append(os.Environ(), "PORT=0", "LOG_LEVEL=warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	port, lines := waitStarted(t, stdout)
	if err := smoke(t, "http://127.0.0.1:"+port+"/", wire.EmulatorKey); err != nil {
		t.Errorf("SDK against the binary: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10s of SIGTERM")
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if !strings.Contains(strings.Join(rest, "\n"), "shutting down") {
		t.Errorf("no shutdown line after SIGTERM; output after Started: %q", rest)
	}
}

// TestRunMultiWrite: --multi-write makes every region writable in the account metadata, and
// Strong with it is refused at start, as the service refuses the combination.
func TestRunMultiWrite(t *testing.T) {
	port, _ := startRun(t, []string{"--port", "0", "--log-level", "quiet", "--regions", "West US,East US", "--multi-write", "true"}, nil)
	acct := readAccount(t, http.DefaultClient, "http://127.0.0.1:"+port+"/")
	if !acct.MultiWrite || len(acct.Writable) != 2 {
		t.Errorf("account metadata: multi-write %v, writable %+v; want both regions writable", acct.MultiWrite, acct.Writable)
	}
	err := run(context.Background(), []string{"--port", "0", "--regions", "A,B", "--multi-write", "true", "--consistency", "Strong"},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil {
		t.Error("Strong with --multi-write started")
	}
}
