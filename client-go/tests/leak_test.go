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
		// The harness waits for each broker process it starts (a restart starts one).
		goleak.VerifyNone(t, ignore, goleak.IgnoreAnyFunction("github.com/brook-io/brook/client-go/tests.(*brokerProcess).launch.func1"))
	}
}
