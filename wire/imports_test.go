package wire

import (
	"os/exec"
	"strings"
	"testing"
)

// module is the import path every package of the module starts with.
const module = "github.com/badged/badged/"

// floors are the house's import rules, from the ground up: a package may import the packages its rule names (by
// path prefix) and nothing else of the module. The composition root (wire) stands above everything it wires; only
// cmd/ stands above it. docs/architecture.md draws the same map; this test is what keeps it true.
var floors = []struct {
	pkg     string   // a package path (below the module), or a prefix ending in "/"
	imports []string // what it may import of the module, by prefix
}{
	{"db", nil},
	{"db/", []string{"db"}},
	{"internal/", []string{"db", "internal/"}},
	{"activities", []string{"db", "internal/"}},
	// Workflow code must stay deterministic: no db, nothing that does I/O.
	{"workflows", []string{"activities", "internal/errcode"}},
	{"temporal", []string{"workflows", "activities", "db", "internal/"}},
	{"temporal/", []string{"temporal/", "workflows", "activities", "db", "internal/"}},
	{"page", []string{"db", "internal/"}},
	{"wallet", []string{"page", "db", "internal/"}}, // page: the offer landing page's language and CSP
	// The HTTP edge names workflows (ids, inputs) and reads db; it never runs steps (activities) or Temporal's plumbing.
	{"api", []string{"page", "wallet", "earner", "workflows", "db", "internal/"}},
	{"earner", []string{"db", "internal/"}},                    // the earner's collection and public profile, mounted by api
	{"api/apitest", []string{"api", "db", "db/", "internal/"}}, // the whole API over a fresh database, for tests
	{"wire", []string{"api", "page", "wallet", "earner", "temporal", "workflows", "activities", "db", "internal/"}},
	{"deploy", nil},
	{"deploy/", []string{"temporal/setup", "workflows", "internal/"}},
	{"client/", []string{"api"}},
	{"cmd/", []string{"cmd/", "wire", "api", "page", "wallet", "earner", "temporal", "temporal/", "workflows", "activities", "db", "internal/", "deploy/"}},
}

// TestImportRules: every non-test import between the module's packages follows floors, so nothing under internal/
// imports what stands above it and no arrow of the import graph runs upward. A new package must be given a floor.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if pkg == "e2e" || pkg == "docs" { // tests only
			continue
		}
		rule, ok := floorOf(pkg)
		if !ok {
			t.Errorf("%s has no floor in wire/imports_test.go: give it one", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, inModule := strings.CutPrefix(imp, module)
			if !inModule || allowed(dep, rule) {
				continue
			}
			t.Errorf("%s imports %s, which its floor does not allow", pkg, dep)
		}
	}
}

// TestImportRules_InternalConfig: cmd/badged/internal/config is cmd's own (Go's internal rule already holds it to
// cmd/badged); a floor rule that matched it as internal/ would be wrong, so the rules must not confuse the two.
func TestImportRules_InternalConfig(t *testing.T) {
	rule, ok := floorOf("cmd/badged/internal/config")
	if !ok || rule[0] != "cmd/" {
		t.Fatalf("cmd/badged/internal/config takes cmd's floor, got %v", rule)
	}
	if allowed("cmd/badged/internal/config", []string{"internal/"}) {
		t.Fatal("internal/ must not match cmd/badged/internal/config")
	}
}

// floorOf returns the imports allowed to pkg: the rule of its own path, else of the longest prefix that holds it.
func floorOf(pkg string) ([]string, bool) {
	best, found := -1, false
	var rule []string
	for _, f := range floors {
		if f.pkg == pkg {
			return f.imports, true
		}
		if strings.HasSuffix(f.pkg, "/") && strings.HasPrefix(pkg, f.pkg) && len(f.pkg) > best {
			best, rule, found = len(f.pkg), f.imports, true
		}
	}
	return rule, found
}

// allowed reports whether a rule lets a package import dep: a path named exactly, or one under a prefix ending in "/".
func allowed(dep string, rule []string) bool {
	for _, r := range rule {
		if dep == r || (strings.HasSuffix(r, "/") && strings.HasPrefix(dep, r)) {
			return true
		}
	}
	return false
}
