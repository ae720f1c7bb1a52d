package tests

import (
	"testing"

	"go.uber.org/goleak"
)

// leakCheck snapshots the goroutines running now; the function it returns
// fails the test if any goroutine started since is still running (goleak
// retries for a while, so goroutines on their way out are not reported).
// Tests that use it must not run in parallel with others.
func leakCheck(t *testing.T) func() {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	return func() {
		t.Helper()
		goleak.VerifyNone(t, ignore)
	}
}
