package vector

import (
	"context"
	"hash/fnv"
	"strings"
	"unicode"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Embedder turns text into an embedding. A real model plugs in here: an adapter calling Azure
// OpenAI (text-embedding-3-small, 1,536 dimensions) or any other service implements Embed and
// returns vectors of the dimensions declared in the container's vector embedding policy.
type Embedder interface {
	Embed(ctx context.Context, text string) ([]float32, error)
}

// HashEmbedder is a deterministic Embedder FOR TESTS AND DEMOS ONLY: it has no notion of meaning,
// only of shared words. Each word (lower-cased letters and digits, split on everything else: see
// Words) is hashed (FNV-1a, 64 bits) into one of Dims buckets, whose count it increments (the
// "hashing trick", without signs, so that no text with a word can cancel out to the zero vector);
// the counts are then L2-normalized. The same text gives the same vector on every machine and Go
// version; no model is downloaded. Texts that share words are close in cosine similarity, and
// different words may share a bucket (more often with fewer Dims). Text without any word is
// cosmoserr.ErrInvalidVector (the zero vector has no direction).
type HashEmbedder struct {
	// Dims is the number of dimensions; it must match the embedding policy. Must be positive.
	Dims int
}

// Embed returns the L2-normalized hashed bag of words of text.
func (h HashEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	if h.Dims <= 0 {
		return nil, invalid(cosmoserr.ErrValidation, "Dims", "must be positive")
	}
	acc := make([]float32, h.Dims)
	for _, w := range Words(text) {
		f := fnv.New64a()
		_, _ = f.Write([]byte(w))
		acc[f.Sum64()%uint64(h.Dims)]++
	}
	return Normalize(acc)
}

// Words splits text into lower-cased words of letters and digits: the tokenization of
// HashEmbedder.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
