// Package tokenmac binds the opaque tokens cosmoskit hands to end users (repository page tokens,
// crosspartition continuation tokens) to the container they belong to and authenticates every
// byte of them.
//
// A tag is HMAC-SHA256 over a domain, the container's identity (account endpoint, database id,
// container id) and the token's own fields, length-prefixed. With a signing key (a secret shared
// by every instance of a service, so tokens work behind a load balancer) nobody without the key
// can forge or alter a token. Without one, the key is a public constant: the tag still refuses
// any token truncated or changed by accident, and any token of another account, database,
// container, query, parameters or scope, but anyone who reads the source can recompute it, so the
// fields of an unkeyed token must be (and are) bounded by what a legitimate token can cost.
//
// The account endpoint and database id are unexported in azcosmos v1.5.0's ContainerClient and
// are read by internal/sdklayout (reflection, no unsafe). TestIdentity fails if an SDK upgrade
// changes that layout; until adapted, Identity is the container id alone, so a token is no longer
// refused on a container of the same id in another account or database, and that is reported:
// cosmoskit.New logs a warning and counts diagnostics.MetricSDKLayoutMismatches, and Identity
// itself logs a warning to slog.Default once per process.
package tokenmac

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/sdklayout"
)

// TagSize is the length of a tag in bytes (128 bits of HMAC-SHA256).
const TagSize = 16

// MinKeyBytes is the shortest signing key accepted.
const MinKeyBytes = 32

// unkeyed is the key of tokens without a signing key: public, so only an integrity check.
var unkeyed = []byte("cosmoskit-go token binding (unkeyed)")

// Tag returns the tag of parts under key (nil key: unkeyed).
func Tag(key []byte, parts ...[]byte) [TagSize]byte {
	if len(key) == 0 {
		key = unkeyed
	}
	m := hmac.New(sha256.New, key)
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		_, _ = m.Write(n[:])
		_, _ = m.Write(p)
	}
	var out [TagSize]byte
	copy(out[:], m.Sum(nil))
	return out
}

// Equal compares two tags in constant time.
func Equal(a, b []byte) bool { return hmac.Equal(a, b) }

// Identity returns the container's identity for binding: account endpoint, database id and
// container id, NUL-separated. azcosmos keeps the database and the account of a ContainerClient
// unexported; internal/sdklayout reads them. If azcosmos changes that layout, the identity falls
// back to the container id alone (and a warning is logged once per process).
func Identity(c *azcosmos.ContainerClient) []byte {
	if c == nil {
		return nil
	}
	id := c.ID()
	endpoint, db, ok := sdklayout.ContainerAccount(c)
	if !ok {
		sdklayout.WarnIdentityOnce()
		return []byte("container\x00" + id)
	}
	return []byte("account\x00" + endpoint + "\x00database\x00" + db + "\x00container\x00" + id)
}
