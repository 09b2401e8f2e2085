package repository_test

import (
	"context"
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Shipment has a hierarchical key /tenant/region, the region nested under address.
type Shipment struct {
	ID      string  `json:"id"`
	Tenant  string  `json:"tenant"`
	Address Address `json:"address"`
	Weight  float64 `json:"weight"`
}

type Address struct {
	Region string `json:"region,omitempty"`
}

// TestWriteChecksDocumentKey: with PartitionKeyPaths, a write whose item lacks a key property is
// rejected before any request, naming the path; one whose KeyFunc key disagrees with the item's
// own properties is refused before sending too (the SDK key is read by sdkKey), matching
// cosmoserr.ErrInvalidPartitionKey, and nothing is written.
func TestWriteChecksDocumentKey(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant", "/address/region")
	var wrong bool
	ships, err := repository.New(e.container, repository.Options[Shipment]{
		Type: "shipment", PartitionKeyPaths: []string{"/tenant", "/address/region"},
		Key: func(s Shipment) (string, azcosmos.PartitionKey) {
			if wrong {
				return s.ID, azcosmos.NewPartitionKeyString(s.Address.Region).AppendString(s.Tenant)
			}
			return s.ID, azcosmos.NewPartitionKeyString(s.Tenant).AppendString(s.Address.Region)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	good := Shipment{ID: "s1", Tenant: "t1", Address: Address{Region: "eu"}, Weight: 2}
	if _, err := ships.Create(ctx, good); err != nil {
		t.Fatal(err)
	}
	wrong = true
	moved := good
	moved.ID = "s9"
	_, err = ships.Upsert(ctx, moved)
	if !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("swapped key components = %v, want ErrInvalidPartitionKey", err)
	}
	if _, err := ships.Get(ctx, partitionkey.Of("t1", "eu"), "s9"); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Fatalf("the refused write stored something: %v", err)
	}
	wrong = false
	e.srv.ResetRequests()
	var ve *cosmoserr.ValidationError
	_, err = ships.Create(ctx, Shipment{ID: "s2", Tenant: "t1"}) // region omitted from the JSON
	if !errors.As(err, &ve) || !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) || ve.Field != "/address/region" {
		t.Fatalf("missing key property = %v, want ErrInvalidPartitionKey for /address/region", err)
	}
	if _, err := ships.UpsertIn(repository.NewTx(ships.Container(), azcosmos.NewPartitionKeyString("t1").AppendString("eu")),
		Shipment{ID: "s3", Tenant: "t1"}).Execute(ctx); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("batch with a missing key property = %v", err)
	}
	// a typed batch key is compared with each item's own key before sending
	if _, err := ships.UpsertIn(repository.NewTx(ships.Container(), partitionkey.Of("t1", "us")),
		good).Execute(ctx); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("batch item of another partition = %v", err)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent for rejected writes", n)
	}

	// Update's function may not move the item either
	_, err = ships.Update(ctx, azcosmos.NewPartitionKeyString("t1").AppendString("eu"), "s1", func(s *Shipment) error {
		s.Address.Region = "us"
		return nil
	})
	if !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("Update moving the item = %v, want ErrValidation", err)
	}
}

// Reading is keyed by a number: the document's number must equal the KeyFunc's.
type Reading struct {
	ID     string  `json:"id"`
	Sensor float64 `json:"sensor"`
}

func TestWriteChecksNumericKey(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/sensor")
	offset := 0.0
	readings, err := repository.New(e.container, repository.Options[Reading]{
		Type: "reading", PartitionKeyPaths: []string{"/sensor"},
		Key: func(r Reading) (string, azcosmos.PartitionKey) {
			return r.ID, azcosmos.NewPartitionKeyNumber(r.Sensor + offset)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readings.Create(ctx, Reading{ID: "r1", Sensor: 7}); err != nil {
		t.Fatal(err)
	}
	if got, err := readings.Get(ctx, azcosmos.NewPartitionKeyNumber(7), "r1"); err != nil || got.Sensor != 7 {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	offset = 1
	if _, err := readings.Upsert(ctx, Reading{ID: "r1", Sensor: 7}); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("numeric key mismatch = %v", err)
	}
}

func TestNewRejectsBadPartitionKeyPaths(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"", "customerId", "/", "/a/"} {
		_, err := repository.New(e.container, repository.Options[Order]{Type: "order", Key: orderKey, PartitionKeyPaths: []string{p}})
		if !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("New with path %q = %v, want ErrValidation", p, err)
		}
	}
}
