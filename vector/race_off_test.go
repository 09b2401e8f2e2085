//go:build !race

package vector_test

const raceEnabled = false
