package vector

import (
	"math"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// UnitTolerance is how far from 1 the L2 norm of a vector may be for CheckUnit.
const UnitTolerance = 1e-6

// Normalize returns v scaled to unit L2 length (a new slice; v is not changed). The norm is
// computed in float64. A zero vector, or one with a NaN or infinity, is cosmoserr.ErrInvalidVector: it has
// no direction. Normalize embeddings before storing them and query vectors before searching
// when the container's distance function is cosine (the seed rule vector-normalize-embeddings):
// the service's cosine similarity does not need it, but dot product on unit vectors equals
// cosine, and scores stay comparable across models.
func Normalize(v []float32) ([]float32, error) {
	n, err := norm(v)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, invalid(cosmoserr.ErrInvalidVector, "Vector", "is the zero vector")
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out, nil
}

// CheckUnit reports cosmoserr.ErrNotUnit if v's L2 norm differs from 1 by more than UnitTolerance, and
// cosmoserr.ErrInvalidVector for a NaN or infinity.
func CheckUnit(v []float32) error {
	n, err := norm(v)
	if err != nil {
		return err
	}
	if math.Abs(n-1) > UnitTolerance {
		return invalid(cosmoserr.ErrNotUnit, "Vector", "L2 norm is %.9f, not 1 within %g", n, UnitTolerance)
	}
	return nil
}

func norm(v []float32) (float64, error) {
	var s float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, invalid(cosmoserr.ErrInvalidVector, "Vector", "component %d is NaN or infinite", i)
		}
		s += f * f
	}
	return math.Sqrt(s), nil
}
