package repository_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestBatchErrorMeansNothingCommitted: a batch whose write committed but one of whose results does
// not decode (a read of a document of another type) returns no error: the failure is reported on
// that operation, matching ErrCommittedResult, so a caller that retries on error never applies the
// batch twice.
func TestBatchErrorMeansNothingCommitted(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	rawPut(t, e.container, "c1", `{"id":"cust","customerId":"c1","type":"customer","schemaVersion":1}`)
	tx := repository.NewTx(e.container, pk("c1"))
	orders.CreateIn(tx, Order{ID: "n1", CustomerID: "c1", Total: 3})
	orders.ReadIn(tx, "cust")
	res, err := tx.Execute(ctx)
	if err != nil {
		t.Fatalf("Execute = %v after the batch committed", err)
	}
	if ok, _ := orders.Exists(ctx, pk("c1"), "n1"); !ok {
		t.Fatal("the create did not commit")
	}
	if len(res) != 2 || res[0].Err != nil || res[0].StatusCode != http.StatusCreated {
		t.Fatalf("result 0 = %+v", res)
	}
	if o, ok := res[0].Item.(Order); !ok || o.Total != 3 {
		t.Fatalf("result 0 item = %#v", res[0].Item)
	}
	if r := res[1]; !errors.Is(r.Err, cosmoserr.ErrCommittedResult) || !errors.Is(r.Err, cosmoserr.ErrTypeMismatch) || r.Item != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("result 1 = %+v (err %v)", r, r.Err)
	}
}

// corruptBatchResponse replaces the body of successful batch responses with bytes that are not
// JSON, after the server committed the batch: the SDK cannot parse the results.
type corruptBatchResponse struct{}

func (corruptBatchResponse) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && req.Raw().Header.Get("x-ms-cosmos-is-batch-request") != "" && resp.StatusCode == http.StatusOK {
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader([]byte("<not json>")))
	}
	return resp, err
}

// TestBatchResultsUnreadableAfterCommit: when the SDK cannot read a committed batch's results,
// Execute still reports no error; every operation carries ErrCommittedResult.
func TestBatchResultsUnreadableAfterCommit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	opts := e.srv.ClientOptions()
	opts.PerRetryPolicies = append(opts.PerRetryPolicies, corruptBatchResponse{})
	cred, _ := azcosmos.NewKeyCredential(e.srv.Key())
	client, err := azcosmos.NewClientWithKey(e.srv.Endpoint(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	cc, _ := client.NewContainer("db", "c")
	orders := newOrders(t, cc)
	tx := orders.CreateIn(repository.NewTx(cc, pk("c1")), Order{ID: "u1", CustomerID: "c1"})
	res, err := orders.CreateIn(tx, Order{ID: "u2", CustomerID: "c1"}).Execute(ctx)
	if err != nil {
		t.Fatalf("Execute = %v after the batch committed", err)
	}
	if ok, _ := orders.Exists(ctx, pk("c1"), "u2"); !ok {
		t.Fatal("the batch did not commit")
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	for i, r := range res {
		if !errors.Is(r.Err, cosmoserr.ErrCommittedResult) {
			t.Errorf("result %d error %v, want ErrCommittedResult", i, r.Err)
		}
	}
}

// TestBatchErrorDetails: a rolled-back batch's error carries the activity id, status, sub-status
// and request charge, and is a *cosmoserr.Error like every other error.
func TestBatchErrorDetails(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	if _, err := orders.Create(ctx, Order{ID: "dup", CustomerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	tx := orders.CreateIn(repository.NewTx(e.container, pk("c1")), Order{ID: "fresh", CustomerID: "c1"})
	_, err := orders.CreateIn(tx, Order{ID: "dup", CustomerID: "c1"}).Execute(ctx)
	var be *repository.BatchError
	if !errors.As(err, &be) || !errors.Is(err, cosmoserr.ErrConflict) {
		t.Fatalf("Execute = %v", err)
	}
	if be.Index != 1 || be.StatusCode != http.StatusConflict || be.ActivityID == "" || be.RequestCharge <= 0 {
		t.Fatalf("BatchError %+v lacks details", be)
	}
	var de *cosmoserr.Error
	if !errors.As(err, &de) || de.Operation != cosmoserr.OpExecuteBatch || de.StatusCode != http.StatusConflict ||
		de.ActivityID != be.ActivityID || de.RequestCharge != be.RequestCharge || de.SubStatus != be.SubStatus {
		t.Fatalf("cosmoserr.Error %+v", de)
	}
}
