package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

// instance is one instance of the web service with its own client.
//
// In production each instance is a process with its own cosmoskit.New client. cosmoskit.New keeps
// one client per account in a process (the SDK's guidance), shared by every New for the account,
// and refuses a second with other PreferredRegions (cosmoserr.ErrConfigConflict); two instances sharing one
// client would also share its session container, and B would see A's writes without any hand-off.
// So to run two instances in this one process, each builds its client with
// cosmoskit.NewIndependent: New's policies and defaults (its own session container, the retry
// layer with the 404/1002 session retries, its preferred regions), outside the registry.
// Provisioning and the conflicts reader use an ordinary cosmoskit.New client.
type instance struct {
	name    string
	prefer  []string
	client  *cosmoskit.Client
	handler http.Handler
}

func (a *account) instance(name string, prefer []string) (*instance, error) {
	cfg := a.cfg
	cfg.PreferredRegions = prefer
	if a.srv != nil {
		cfg.Retry.SessionRetry.MaxWait = demoSessionWait
	}
	cfg.PerRetryPolicies = append(slices.Clone(cfg.PerRetryPolicies), attemptLog{})
	client, err := cosmoskit.NewIndependent(cfg)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", name, err)
	}
	return &instance{name: name, prefer: prefer, client: client}, nil
}

// Close closes the instance's client.
func (in *instance) Close() { in.client.Close() }

// attempt is one HTTP attempt of an operation, as attemptLog saw it.
type attempt struct {
	host      string
	status    int
	subStatus string
}

type attemptsKey struct{}

// attempts collects the attempts of the operations run with its context. The example's requests
// run one at a time, so it needs no lock.
type attempts struct{ list []attempt }

func withAttempts(ctx context.Context) (context.Context, *attempts) {
	a := &attempts{}
	return context.WithValue(ctx, attemptsKey{}, a), a
}

// attemptLog is a per-retry policy, after the retry layer (which picks each attempt's region):
// it records where each attempt went and how it was answered.
type attemptLog struct{}

func (attemptLog) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	// Document requests only: the SDK reads the account metadata through the same pipeline.
	if a, ok := req.Raw().Context().Value(attemptsKey{}).(*attempts); ok && resp != nil && strings.Contains(req.Raw().URL.Path, "/docs") {
		a.list = append(a.list, attempt{host: req.Raw().URL.Host, status: resp.StatusCode, subStatus: resp.Header.Get("x-ms-substatus")})
	}
	return resp, err
}

// describe says where the attempts went: "East US 404/1002 x3, West US 200".
func (a *attempts) describe(acct *account) string {
	if len(a.list) == 0 {
		return "no request sent to Cosmos DB"
	}
	var parts []string
	for i := 0; i < len(a.list); {
		at := a.list[i]
		n := 1
		for i+n < len(a.list) && a.list[i+n] == at {
			n++
		}
		s := fmt.Sprintf("%s %d", acct.region(at.host), at.status)
		if at.subStatus != "" && at.subStatus != "0" {
			s += "/" + at.subStatus
		}
		if n > 1 {
			s += fmt.Sprintf(" x%d", n)
		}
		parts = append(parts, s)
		i += n
	}
	return strings.Join(parts, ", ")
}

// last returns the region the last attempt went to.
func (a *attempts) last(acct *account) string {
	if len(a.list) == 0 {
		return ""
	}
	return acct.region(a.list[len(a.list)-1].host)
}
