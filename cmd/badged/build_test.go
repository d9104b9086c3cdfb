package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductionBuildLeavesOutTheEmbeddedDefault: serve and worker in a production build (-tags production) do
// not carry the Temporal server, its UI or the dev chain; the default build (for `badged dev`) does.
func TestProductionBuildLeavesOutTheEmbeddedDefault(t *testing.T) {
	embedded := []string{"go.temporal.io/server/", "github.com/temporalio/ui-server/",
		"github.com/badged/badged/temporal/devserver", "github.com/badged/badged/internal/chain/devchain"}
	deps := func(tags ...string) string {
		args := append([]string{"list", "-deps"}, tags...)
		out, err := exec.Command("go", append(args, ".")...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", tags, err)
		}
		return string(out)
	}
	prod, dev := deps("-tags", "production"), deps()
	for _, pkg := range embedded {
		if strings.Contains(prod, pkg) {
			t.Errorf("the production build links %s", pkg)
		}
		if !strings.Contains(dev, pkg) {
			t.Errorf("the default build lacks %s: `badged dev` would not work", pkg)
		}
	}
}
