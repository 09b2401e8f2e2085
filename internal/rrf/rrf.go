// Package rrf is reciprocal rank fusion as Azure Cosmos DB's hybrid search applies it (ORDER BY RANK
// RRF(...)): the one rule shared by the query engine cosmostest runs (a single partition) and the
// client-side cross-partition engine (the fusion of the component queries' results).
package rrf

import "slices"

// K is the constant of reciprocal rank fusion the service documents (60).
const K = 60

// Fuse is reciprocal rank fusion as the service's hybrid search does it: per component i,
// the results are ranked by their scores cols[i] (descending where desc[i], a negative weight
// reversing the order and counting by its absolute value), equal scores sharing a rank and ranks
// counting from 1 without gaps; each result scores Σ_i |w_i| / (60 + rank_i).
func Fuse(cols [][]float64, desc []bool, weights []float64) []float64 {
	if len(cols) == 0 {
		return nil
	}
	n := len(cols[0])
	out := make([]float64, n)
	order := make([]int, n)
	for ci, col := range cols {
		w, d := weights[ci], desc[ci]
		if w < 0 {
			w, d = -w, !d
		}
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			x, y := col[a], col[b]
			if d {
				x, y = y, x
			}
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
		rank := 1
		for k, i := range order {
			if k > 0 && col[i] != col[order[k-1]] {
				rank++
			}
			out[i] += w / float64(K+rank)
		}
	}
	return out
}
