package integration

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/modules/azure/cosmosdb"
)

const (
	defaultCosmostestImage = "cosmoskit/cosmostest:dev"
	defaultEmulatorImage   = "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-preview"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

var docker struct {
	once sync.Once
	err  error
	cli  *testcontainers.DockerClient
	host string // where published ports are reached
}

// requireDocker skips the test with a one-line reason unless a Docker engine answers.
func requireDocker(t *testing.T) *testcontainers.DockerClient {
	t.Helper()
	docker.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		provider, err := testcontainers.NewDockerProvider(testcontainers.WithLogger(tclog.TestLogger(t)))
		if err == nil {
			if err = provider.Health(ctx); err == nil {
				docker.host, err = provider.DaemonHost(ctx)
			}
			_ = provider.Close()
		}
		if err == nil {
			docker.cli, err = testcontainers.NewDockerClientWithOpts(ctx)
		}
		docker.err = err
	})
	if docker.err != nil {
		t.Skipf("no Docker engine answers (testcontainers: %s)", firstLine(docker.err.Error()))
	}
	return docker.cli
}

// imagePresent reports whether the engine has the image locally, and when it was built.
func imagePresent(t *testing.T, cli *testcontainers.DockerClient, image string) (bool, time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cli.ImageInspect(ctx, image)
	if err != nil {
		return false, time.Time{}
	}
	created, _ := time.Parse(time.RFC3339Nano, res.Created)
	return true, created
}

// newestSource returns the latest modification time of the root module's Go files and go.mod (the
// inputs of the cosmostest binary), skipping this module, testdata and hidden directories.
func newestSource() (time.Time, error) {
	var newest time.Time
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "integration") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum" || name == "Dockerfile" {
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.ModTime().After(newest) {
				newest = info.ModTime()
			}
		}
		return nil
	})
	return newest, err
}

var imageBuild struct {
	once sync.Once
	err  error
}

// ensureCosmostestImage builds the cosmostest image from this checkout with scripts/build-image.sh
// when it is missing, older than the newest source file of the root module, or always when
// COSMOSKIT_REBUILD_IMAGE=1. COSMOSKIT_REBUILD_IMAGE=0 uses any image present as it is.
func ensureCosmostestImage(t *testing.T, cli *testcontainers.DockerClient, image string) {
	t.Helper()
	present, created := imagePresent(t, cli, image)
	switch rebuild := os.Getenv("COSMOSKIT_REBUILD_IMAGE"); {
	case rebuild == "1":
	case !present:
		t.Logf("image %s is not present: building it", image)
	case rebuild == "0":
		return
	default:
		newest, err := newestSource()
		if err != nil {
			t.Fatalf("scan sources: %v", err)
		}
		if !newest.After(created) {
			return
		}
		t.Logf("image %s (built %s) is older than the sources (%s): rebuilding", image,
			created.Format(time.RFC3339), newest.Format(time.RFC3339))
	}
	imageBuild.once.Do(func() {
		start := time.Now()
		script, err := filepath.Abs(filepath.Join("..", "scripts", "build-image.sh"))
		if err != nil {
			imageBuild.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", script)
		// The docker CLI in the script talks to the engine Testcontainers found.
		cmd.Env = append(os.Environ(), "COSMOSTEST_IMAGE="+image, "DOCKER_HOST="+cli.DaemonHost())
		out, err := cmd.CombinedOutput()
		if err != nil {
			imageBuild.err = errors.New(err.Error() + ": " + string(out))
			return
		}
		t.Logf("built %s in %s", image, time.Since(start).Round(time.Millisecond))
	})
	if imageBuild.err != nil {
		t.Fatalf("build %s: %v", image, imageBuild.err)
	}
}

// runInContainer starts image with the Testcontainers Cosmos DB module, waits until the account
// answers, and runs the scenario with the module's host-pinning ContainerPolicy, as code written for
// the emulator does.
func runInContainer(t *testing.T, image string, lenient bool, opts ...testcontainers.ContainerCustomizer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	ctr := startContainer(ctx, t, image, opts...)
	connStr, err := ctr.ConnectionString(ctx)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := cosmosdb.NewContainerPolicy(ctx, ctr)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientFromConnectionString(connStr, policy.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	waitReady(ctx, t, client)
	t.Logf("%s ready in %s", image, time.Since(start).Round(time.Millisecond))
	runScenario(t, client, lenient)
}

// runAdvertised starts image with its port 8081 published on a chosen host port P and
// GATEWAY_PUBLIC_ENDPOINT set to host:P, then runs the scenario with a plain client (no policy): the
// endpoint the account advertises is the one the client can reach, as with the emulator's
// --gateway-endpoint.
func runAdvertised(t *testing.T, image string, lenient bool, opts ...testcontainers.ContainerCustomizer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	port := freePort(t)
	hostPort := net.JoinHostPort(docker.host, port)
	opts = append(opts,
		testcontainers.WithEnv(map[string]string{"GATEWAY_PUBLIC_ENDPOINT": hostPort}),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = network.PortMap{network.MustParsePort("8081/tcp"): {{HostPort: port}}}
		}))
	ctr := startContainer(ctx, t, image, opts...)
	if mapped, err := ctr.MappedPort(ctx, "8081/tcp"); err != nil || mapped.Port() != port {
		t.Fatalf("port 8081 mapped to %v (%v), want %s", mapped, err, port)
	}
	client, err := azcosmos.NewClientFromConnectionString(
		"AccountEndpoint=http://"+hostPort+"/;AccountKey="+cosmoskit.EmulatorKey+";", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitReady(ctx, t, client)
	runScenario(t, client, lenient)
}

func startContainer(ctx context.Context, t *testing.T, image string, opts ...testcontainers.ContainerCustomizer) *cosmosdb.Container {
	t.Helper()
	opts = append([]testcontainers.ContainerCustomizer{testcontainers.WithLogger(tclog.TestLogger(t))}, opts...)
	ctr, err := cosmosdb.Run(ctx, image, opts...)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatalf("run %s: %v", image, err)
	}
	return ctr
}

// freePort returns a TCP port that was free on this machine a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// waitReady polls until the account serves data-plane requests: the vNext emulator answers 503
// ("pgcosmos extension is still starting") for a few seconds after it logs Started.
func waitReady(ctx context.Context, t *testing.T, client *azcosmos.Client) {
	t.Helper()
	db, err := client.NewDatabase("readiness-probe")
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, err := db.Read(ctx, nil)
		if err == nil || statusOf(err) == 404 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("account not ready: %v", err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestScenarioCosmostestImage runs the scenario against the cosmostest image (built if missing) as a
// drop-in for the emulator: the module's default command line (--enable-explorer false) plus two
// cosmostest flags, and three partitions.
func TestScenarioCosmostestImage(t *testing.T) {
	cli := requireDocker(t)
	image := envOr("COSMOSTEST_IMAGE", defaultCosmostestImage)
	ensureCosmostestImage(t, cli, image)
	t.Run("host pinning policy", func(t *testing.T) {
		runInContainer(t, image, false, testcontainers.WithCmdArgs("--partitions", "3", "--enable-telemetry", "false"))
	})
	t.Run("advertised endpoint", func(t *testing.T) { runAdvertised(t, image, false) })
}

// TestScenarioEmulatorImage runs the same scenario against the official vNext emulator image, if it is
// present locally (it is never pulled).
func TestScenarioEmulatorImage(t *testing.T) {
	cli := requireDocker(t)
	image := envOr("COSMOSKIT_EMULATOR_IMAGE", defaultEmulatorImage)
	if present, _ := imagePresent(t, cli, image); !present {
		t.Skipf("emulator image %s is not present locally (these tests never pull)", image)
	}
	noTelemetry := testcontainers.WithEnv(map[string]string{"ENABLE_TELEMETRY": "false"})
	t.Run("host pinning policy", func(t *testing.T) { runInContainer(t, image, true, noTelemetry) })
	t.Run("advertised endpoint", func(t *testing.T) { runAdvertised(t, image, true, noTelemetry) })
}
