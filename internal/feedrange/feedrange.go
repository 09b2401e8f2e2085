// Package feedrange learns what azcosmos v1.5.0 keeps to itself about a partition key range: its
// id. ReadFeedRanges gives only the bounds, but the SDK names the range by id
// (x-ms-documentdb-partitionkeyrangeid) when it reads the range's change feed, so the id is read
// from that request: one read from "now" (no documents, about 1 RU). crosspartition and changefeed
// both need it.
package feedrange

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// errNoID is returned when the change feed request did not name the range (an SDK that no longer
// sends the header): the caller says which range and what it could not do.
var errNoID = errors.New("the change feed request named no partition key range id")

// ID returns the id of the partition key range with exactly the bounds fr. An error from the read
// is the SDK's, unwrapped; a read that named no range is [IsNoID].
func ID(ctx context.Context, c *azcosmos.ContainerClient, fr azcosmos.FeedRange) (string, error) {
	var resp *http.Response
	now := time.Now().Add(time.Minute)
	if _, err := c.ReadChangeFeed(policy.WithCaptureResponse(ctx, &resp), &azcosmos.ChangeFeedOptions{FeedRange: &fr, StartFrom: &now, MaxItemCount: 1}); err != nil {
		return "", err
	}
	if resp == nil || resp.Request == nil || resp.Request.Header.Get(wire.HeaderPKRangeID) == "" {
		return "", errNoID
	}
	return resp.Request.Header.Get(wire.HeaderPKRangeID), nil
}

// IsNoID reports whether err is ID's "no range id" answer.
func IsNoID(err error) bool { return errors.Is(err, errNoID) }
