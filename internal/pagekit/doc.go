// Package pagekit is the common look of the service's server-rendered pages: one stylesheet, the document's head,
// header (brand and language switch) and footer, a plain notice page (the 404 page and its kin), the language
// choice (?lang, then Accept-Language; English or Korean), the Content-Security-Policy the pages answer with, and
// the buffered writer that never sends half a page. The badge page (package page), the organization's and the
// badge's pages and the earner's pages use it, so a visitor sees one site.
//
// A page package parses its own templates over pagekit's (Parse) and passes a Chrome (what the header, head and
// footer show) to the shared templates. It may import db, internal/ and the standard library; it imports no page.
package pagekit
