package page

import (
	"html"
	"html/template"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/internal/stats"
)

// The share networks are stats.Networks, named there once (stats.NetworkX, …): the page's buttons, its targets
// (shareTarget) and the counting redirect all go by those names.

// shareContent is what a share of one assertion says, in the page's language: the page URL, the sentence (which
// names a revoked, expired or replaced badge's state first, so a share never shows a badge as better than it is),
// the e-mail subject, and LinkedIn's add-to-profile URL ("" unless the badge is valid).
type shareContent struct {
	PageURL, Text, Subject, LinkedInAdd string
}

// shareTarget is the network's own URL for sharing c, "" when the network is not offered for it. The counting
// redirect answers with the same URL, so the page and the redirect never disagree on where a share goes.
func shareTarget(network string, c shareContent) string {
	switch network {
	case stats.NetworkLinkedInAdd:
		return c.LinkedInAdd
	case stats.NetworkLinkedInPost: // LinkedIn takes only the URL; the post's preview comes from the page's Open Graph tags
		return "https://www.linkedin.com/sharing/share-offsite/?url=" + url.QueryEscape(c.PageURL)
	case stats.NetworkX:
		return "https://x.com/intent/post?text=" + url.QueryEscape(c.Text) + "&url=" + url.QueryEscape(c.PageURL)
	case stats.NetworkFacebook:
		return "https://www.facebook.com/sharer/sharer.php?u=" + url.QueryEscape(c.PageURL)
	case stats.NetworkEmail: // RFC 6068: spaces are %20 in a mailto URI ("+" would stay a plus sign in the mail)
		return "mailto:?subject=" + mailtoEscape(c.Subject) + "&body=" + mailtoEscape(c.Text+"\n\n"+c.PageURL)
	case stats.NetworkCopy:
		return c.PageURL
	}
	return ""
}

// shareLink is the ONE place the badge page builds a share link: every share button and LinkedIn's
// add-to-profile go through the counting redirect /share/{id}/{network}?lang= (share_redirect.go), which counts the click
// and answers 302 to shareTarget of the same content in the same language. The copy field is the exception: it holds
// the page's own address, because that is what people paste, and a pasted link should not depend on the counter.
func (h *Handler) shareLink(id uuid.UUID, network string, c shareContent, lang string) string {
	target := shareTarget(network, c)
	if target == "" || network == stats.NetworkCopy {
		return target
	}
	return ShareURL(h.urls.BaseURL, id.String(), network) + "?lang=" + lang
}

func mailtoEscape(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// pageShare is one share button of the page.
type pageShare struct {
	ID, Label, URL string
}

// shareStatusWord is the word a share of a badge that is not valid leads with (REVOKED, 취소됨, …): the share
// text, the e-mail subject and the preview image's band. "" for a valid badge.
func shareStatusWord(kind, lang string) string {
	if kind == "valid" {
		return ""
	}
	return msg(lang, "state."+kind)
}

// shareContentOf is what a share of the page v says: the verdict decides the sentence.
func (h *Handler) shareContentOf(id uuid.UUID, v pageView, f shownFacts, linkedInAdd string) shareContent {
	c := shareContent{PageURL: h.urls.VerifyURL(id), LinkedInAdd: linkedInAdd}
	subject := msg(v.Lang, "share.subject", f.Badge, f.Recipient)
	if word := shareStatusWord(v.Verdict.Kind, v.Lang); word != "" {
		c.Text = msg(v.Lang, "share.textState", word, f.Badge, f.Recipient, f.Issuer, v.Verdict.Title)
		c.Subject = word + ": " + subject
	} else {
		c.Text = msg(v.Lang, "share.textValid", f.Recipient, f.Badge, f.Issuer)
		c.Subject = subject
	}
	return c
}

// addSharing fills the page's share buttons, copy link and embed snippet.
func (h *Handler) addSharing(v *pageView, id uuid.UUID, f shownFacts, linkedInAdd string) {
	c := h.shareContentOf(id, *v, f, linkedInAdd)
	v.share = c
	v.LinkedIn = h.shareLink(id, stats.NetworkLinkedInAdd, c, v.Lang)
	for _, n := range stats.Networks {
		if n == stats.NetworkLinkedInAdd || n == stats.NetworkCopy { // shown apart: the LinkedIn button, the copy field
			continue
		}
		v.Shares = append(v.Shares, pageShare{ID: "share-" + n, Label: msg(v.Lang, "share."+n), URL: h.shareLink(id, n, c, v.Lang)})
	}
	v.CopyURL = h.shareLink(id, stats.NetworkCopy, c, v.Lang)
	v.Embed = embedSnippet(v.Lang, c.PageURL, h.previewURL(id, v.Lang), f)
}

// embedSnippet is the HTML a recipient copies into a website or blog: a link to the page around the preview image
// and one line of text. No script and no iframe: it works where a site's HTML sanitizer keeps only links and
// images, the page keeps refusing to be framed (frame-ancestors 'none'), and the image, served fresh from its
// stable URL, shows the badge's state as it is now, while the static text says nothing a revocation could make false.
func embedSnippet(lang, pageURL, imageURL string, f shownFacts) string {
	e := html.EscapeString
	alt := msg(lang, "embed.alt", f.Badge, f.Recipient, f.Issuer)
	return `<a href="` + e(pageURL) + `" style="display:inline-block;max-width:100%;color:#1f4fa0;font:15px/1.4 system-ui,sans-serif">` +
		`<img src="` + e(imageURL) + `" alt="` + e(alt) + `" width="600" height="315" ` +
		`style="display:block;box-sizing:border-box;max-width:100%;height:auto;border:1px solid #dde2ea;border-radius:8px">` +
		`<span style="display:block;margin-top:6px">` + e(msg(lang, "embed.text")) + `</span></a>`
}

// EmbedPreview is the snippet as the page shows it live: the very HTML the recipient copies, built from escaped
// values only (embedSnippet), so it is safe to insert as it is.
func (v pageView) EmbedPreview() template.HTML { return template.HTML(v.Embed) } //nolint:gosec // escaped by embedSnippet
