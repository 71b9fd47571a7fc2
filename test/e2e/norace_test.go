//go:build !race

package e2e

// raceEnabled builds the gateway with the race detector when the tests have it.
const raceEnabled = false
