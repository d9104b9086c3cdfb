// Package docs holds badged's guides, the Markdown files beside this one that the README's map points to. It has
// no code: its test (links_test.go) checks every relative link and anchor of README.md and docs/, so a moved
// section or a renamed file fails `make test` and `make lint` instead of leaving a dead link.
//
// Its tests import only the standard library.
package docs
