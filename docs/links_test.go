package docs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestLinks checks every relative link of README.md and docs/**/*.md: the file or directory it names exists in the
// repository, and its #anchor is a heading of the target (GitHub's slug of it). Absolute links (http, https, mailto,
// …) are not fetched: a test that needs the network cannot run everywhere, and their targets are not ours to keep.
func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" { // the checker's own fixtures, broken on purpose
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found only %v: the guides under docs/ are gone", files)
	}
	problems, links := checkLinks(root, files)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d files, %d relative links checked", len(files), links)
}

// checkLinks reads each file (a path relative to root, with slashes) and returns one line per broken relative link,
// and how many relative links it checked.
func checkLinks(root string, files []string) (problems []string, checked int) {
	docs := map[string]*markdown{} // by path relative to root, read once
	read := func(rel string) (*markdown, error) {
		if md, ok := docs[rel]; ok {
			return md, nil
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		md := parseMarkdown(string(src))
		docs[rel] = md
		return md, nil
	}
	for _, file := range files {
		md, err := read(file)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		for _, l := range md.links {
			msg, ok := checkLink(root, file, l.dest, read)
			if !ok { // absolute: not ours to check
				continue
			}
			checked++
			if msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s", file, l.line, l.dest, msg))
			}
		}
	}
	return problems, checked
}

var (
	schemeRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	lineRangeRE = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`) // GitHub's line anchors of a file that is not Markdown
)

// checkLink returns why dest, a link in file, is broken ("" when it is not), and false when dest is absolute.
func checkLink(root, file, dest string, read func(string) (*markdown, error)) (string, bool) {
	if schemeRE.MatchString(dest) || strings.HasPrefix(dest, "//") {
		return "", false
	}
	path, frag, hasFrag := strings.Cut(dest, "#")
	path, _, _ = strings.Cut(path, "?")
	path, err := url.PathUnescape(path)
	if err != nil {
		return "bad escape in the path: " + err.Error(), true
	}
	if frag, err = url.PathUnescape(frag); err != nil {
		return "bad escape in the anchor: " + err.Error(), true
	}
	target := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "a path from the root does not resolve on GitHub; use a path relative to " + file, true
		}
		target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), path)))
		if target == ".." || strings.HasPrefix(target, "../") {
			return "points outside the repository", true
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
		if err != nil {
			return "no file or directory " + target, true
		}
		if info.IsDir() {
			if hasFrag {
				return "an anchor into the directory " + target, true
			}
			return "", true
		}
	}
	if !hasFrag {
		return "", true
	}
	if frag == "" {
		return "empty anchor", true
	}
	if !strings.HasSuffix(target, ".md") {
		if lineRangeRE.MatchString(frag) {
			return "", true
		}
		return "anchor #" + frag + " into " + target + ", which is not Markdown", true
	}
	md, err := read(target)
	if err != nil {
		return err.Error(), true
	}
	if !md.anchors[frag] {
		return fmt.Sprintf("no heading with anchor #%s in %s%s", frag, target, md.near(frag)), true
	}
	return "", true
}

// markdown is what the checker reads of a Markdown file: the anchors its headings (and HTML anchors) define, and
// the link destinations outside code.
type markdown struct {
	anchors map[string]bool
	order   []string // anchors in order, for the hint of a broken link
	links   []link
}

type link struct {
	line int
	dest string
}

// near names the anchors that share the broken one's first word, so a failure says what the heading became.
func (md *markdown) near(frag string) string {
	first, _, _ := strings.Cut(frag, "-")
	var close []string
	for _, a := range md.order {
		if a == first || strings.HasPrefix(a, first+"-") {
			close = append(close, "#"+a)
		}
	}
	if len(close) == 0 || len(close) > 8 {
		return ""
	}
	return " (there: " + strings.Join(close, ", ") + ")"
}

var (
	fenceRE      = regexp.MustCompile("^\\s*(`{3,}|~{3,})")
	atxRE        = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	htmlAnchorRE = regexp.MustCompile(`<a\s[^>]*(?:id|name)="([^"]+)"`)
	// An inline link or image: [text](dest) or [text](<dest> "title"); the text may span lines.
	inlineLinkRE = regexp.MustCompile(`!?\[((?:[^\]\\]|\\.)*)\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)`)
	refDefRE     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	htmlLinkRE   = regexp.MustCompile(`\s(?:href|src)="([^"]+)"`)
	htmlTagRE    = regexp.MustCompile(`<[^>]+>`)
)

// parseMarkdown finds the headings and links of src as GitHub renders them, outside fenced code blocks and code
// spans.
func parseMarkdown(src string) *markdown {
	md := &markdown{anchors: map[string]bool{}}
	slugs := slugger{}
	lines := strings.Split(src, "\n")
	text := make([]string, len(lines)) // src with fenced code blanked, line for line
	var fence string
	for i, line := range lines {
		if fence != "" {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			fence = m[1]
			continue
		}
		text[i] = line
		if m := atxRE.FindStringSubmatch(line); m != nil {
			a := slugs.slug(headingText(m[2]))
			md.anchors[a] = true
			md.order = append(md.order, a)
		}
		for _, m := range htmlAnchorRE.FindAllStringSubmatch(line, -1) {
			md.anchors[m[1]] = true
			md.order = append(md.order, m[1])
		}
	}
	body := blankCodeSpans(strings.Join(text, "\n"))
	lineOf := func(at int) int { return strings.Count(body[:at], "\n") + 1 }
	for _, m := range inlineLinkRE.FindAllStringSubmatchIndex(body, -1) {
		md.links = append(md.links, link{lineOf(m[0]), strings.Trim(body[m[4]:m[5]], "<>")})
	}
	for _, re := range []*regexp.Regexp{refDefRE, htmlLinkRE} {
		for _, m := range re.FindAllStringSubmatchIndex(body, -1) {
			md.links = append(md.links, link{lineOf(m[0]), strings.Trim(body[m[2]:m[3]], "<>")})
		}
	}
	slices.SortStableFunc(md.links, func(a, b link) int { return a.line - b.line })
	return md
}

// codeSpans calls f with the start and end of every code span of s (its backticks included): a run of n backticks up
// to the next run of exactly n. A run without its match is literal text, as CommonMark reads it.
func codeSpans(s string, f func(start, end, inner, innerEnd int)) {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(s) && s[j+m] == '`' {
				m++
			}
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		f(i, end+n, i+n, end)
		i = end + n
	}
}

// blankCodeSpans replaces every code span of s by spaces (line breaks kept), so nothing in code reads as a link.
func blankCodeSpans(s string) string {
	b := []byte(s)
	codeSpans(s, func(start, end, _, _ int) {
		for k := start; k < end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	})
	return string(b)
}

// headingText is the text GitHub renders for a heading's Markdown: code spans keep their content without the
// backticks, links and images their text, emphasis and HTML tags disappear, backslash escapes are resolved.
func headingText(s string) string {
	var out strings.Builder
	last := 0
	codeSpans(s, func(start, end, inner, innerEnd int) {
		out.WriteString(renderInline(s[last:start]))
		out.WriteString(strings.TrimSpace(s[inner:innerEnd]))
		last = end
	})
	out.WriteString(renderInline(s[last:]))
	return strings.TrimSpace(out.String())
}

var escapeRE = regexp.MustCompile(`\\([[:punct:]])`)

func renderInline(s string) string {
	s = inlineLinkRE.ReplaceAllString(s, "$1")
	s = htmlTagRE.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "*", "")
	return escapeRE.ReplaceAllString(s, "$1")
}

// slugger gives headings GitHub's anchors (github-slugger): lower case; letters, marks, decimal and letter
// numbers and connector punctuation (_) kept, Hangul and every other script included; a space or a hyphen becomes
// a hyphen; everything else (other punctuation, symbols, emoji) is dropped. The second heading with a slug gets
// slug-1, the third slug-2.
type slugger map[string]int

func (s slugger) slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ' || r == '-':
			b.WriteByte('-')
		case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc):
			b.WriteRune(r)
		}
	}
	base := b.String()
	slug := base
	for {
		if _, taken := s[slug]; !taken {
			break
		}
		s[base]++
		slug = base + "-" + strconv.Itoa(s[base])
	}
	s[slug] = 0
	return slug
}
