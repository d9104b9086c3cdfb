package docs

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckLinks_Fixture runs the checker on testdata/links, whose README holds links that resolve (headings with
// code, punctuation, Hangul, repeated headings, an HTML anchor, a line of a file, a link text over two lines, a
// reference definition, a percent-escaped anchor) and links that do not: it must report exactly the broken ones,
// and nothing in code or absolute.
func TestCheckLinks_Fixture(t *testing.T) {
	problems, checked := checkLinks("testdata/links", []string{"README.md"})
	want := []string{
		`README.md:12: link "sub/guide.md#no-such-section": no heading with anchor #no-such-section in sub/guide.md`,
		`README.md:22: link "sub/missing.md": no file or directory sub/missing.md`,
		`README.md:22: link "sub/guide.md#the-api": no heading with anchor #the-api in sub/guide.md (there: #the-api-v2-and-v3)`,
		`README.md:23: link "#not-here": no heading with anchor #not-here in README.md`,
		`README.md:23: link "sub/guide.md#notes-3": no heading with anchor #notes-3 in sub/guide.md (there: #notes, #notes-1, #notes-2)`,
		`README.md:24: link "code.txt#main": anchor #main into code.txt, which is not Markdown`,
		`README.md:24: link "../../../../outside.md": points outside the repository`,
		`README.md:24: link "/README.md": a path from the root does not resolve on GitHub; use a path relative to README.md`,
		`README.md:25: link "#not-a-heading": no heading with anchor #not-a-heading in README.md`,
		`README.md:25: link "sub/#x": an anchor into the directory sub`,
		`README.md:26: link "sub/gone.md": no file or directory sub/gone.md`,
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if checked != 25 {
		t.Errorf("checked %d relative links, want 25 (14 that hold, 11 broken)", checked)
	}
}

// TestSlug holds the slugger to GitHub's anchors for the kinds of headings the guides use.
func TestSlug(t *testing.T) {
	s := slugger{}
	for _, c := range []struct{ heading, want string }{
		{"Webhooks (v3 extension; Standard Webhooks)", "webhooks-v3-extension-standard-webhooks"},
		{"Issuances of 100,000 recipients", "issuances-of-100000-recipients"},
		{"Test mode: the sandbox of test keys", "test-mode-the-sandbox-of-test-keys"},
		{"`make run` and `make test`", "make-run-and-make-test"},
		{"The `badged admin` commands", "the-badged-admin-commands"},
		{"What happened to each badge (v3 extension): views, verifications, downloads, shares",
			"what-happened-to-each-badge-v3-extension-views-verifications-downloads-shares"},
		{"Into the earner's wallet (OpenID4VCI 1.0, pre-authorized code flow)",
			"into-the-earners-wallet-openid4vci-10-pre-authorized-code-flow"},
		{"배지 페이지 — 증빙 자료", "배지-페이지--증빙-자료"},
		{"**Bold** and [a link](x.md) in a heading", "bold-and-a-link-in-a-heading"},
		{"`ANCHOR_WAIT` and `RETRY_POLICY_FILE`", "anchor_wait-and-retry_policy_file"},
		{"Closing hashes", "closing-hashes"},
		{"Notes", "notes"},
		{"Notes", "notes-1"},
		{"Notes", "notes-2"},
	} {
		if got := s.slug(headingText(c.heading)); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}
