package notify

import (
	"encoding/base64"
	"fmt"
	netmail "net/mail"
	"strings"
	"unicode/utf8"

	"github.com/wneessen/go-mail"

	"github.com/badged/badged/internal/safetext"
)

// The address headers carry names an organization chose (its own, in From; its recipients', in To). Each goes in
// as a net/mail Address, which quotes an ASCII name and encodes (RFC 2047) any other (Address.String): never pasted
// between quotes, where a name holding a quote, a comma or an angle bracket would end the phrase early and break
// the header or add an address. What Address.String leaves as it is, an ASCII name holding "=?" (the opening of an
// encoded word, such as "=?utf-8?B?7ZWc67mb?="), sits between quotes, where RFC 2047 says it is not decoded; but
// mail clients decode it there anyway and show the decoded text ("한빛") instead of the name. Such names are written
// as encoded words themselves, so every reader decodes them to the name as it was given.

// setTo sets the To header to the recipient: a name holding "=?" is written as encoded words (encodeWords) in a
// header of its own making, since go-mail writes an address's name through Address.String; the SMTP envelope then
// takes the address from the Bcc list, which is never written as a header, so the message still goes to exactly
// that one address.
func setTo(m *mail.Msg, to *netmail.Address) {
	if !hasEncodedWordOpening(to.Name) {
		m.ToMailAddress(to)
		return
	}
	bare := &netmail.Address{Address: to.Address}
	m.SetGenHeaderPreformatted(mail.Header(mail.HeaderTo), encodeWords(to.Name)+" "+bare.String())
	m.BccMailAddress(bare)
}

// setFrom sets the From header: the deployment's address, under the notification's display name when it has one.
// go-mail writes the From header only from the sender's address, so the To header's way is closed here; an ASCII
// name holding "=?" gets a word joiner (U+2060, invisible) after each "=", which makes Address.String encode it:
// readers show the name as it reads, and none decodes a word of it.
func setFrom(m *mail.Msg, from, name string) error {
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return fmt.Errorf("from address: %w", err)
	}
	if name = safetext.Display(name); name != "" {
		if hasEncodedWordOpening(name) {
			name = strings.ReplaceAll(name, "=?", "=\u2060?")
		}
		a.Name = name
	}
	m.FromMailAddress(a)
	return nil
}

// hasEncodedWordOpening reports whether an ASCII name holds "=?", which Address.String writes as it is (quoted)
// and mail clients would decode. A name with any other character is encoded whole by Address.String already.
func hasEncodedWordOpening(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return false
		}
	}
	return strings.Contains(name, "=?")
}

// setSubject sets the Subject. Text that is printable ASCII goes as it is (go-mail folds a long one); anything
// else is encoded as RFC 2047 words by encodeWords, which also covers what go-mail's encoder leaves plain: ASCII
// that holds "=?", which a mail client would decode as an encoded word, so a name such as "=?utf-8?q?Admin?="
// would show as something it is not.
func setSubject(m *mail.Msg, subject string) {
	subject = safetext.Display(subject)
	if !needsEncoding(subject) {
		m.Subject(subject)
		return
	}
	m.SetGenHeaderPreformatted(mail.HeaderSubject, encodeWords(subject))
}

// needsEncoding reports whether header text must be RFC 2047 encoded: it holds a byte outside printable ASCII
// (tab and space aside) or the "=?" that opens an encoded word.
func needsEncoding(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' || c > '~') && c != '\t' {
			return true
		}
	}
	return strings.Contains(s, "=?")
}

// maxWordBytes is the most UTF-8 bytes one B-encoded word carries: "=?utf-8?b?" + base64 + "?=" stays within
// RFC 2047's 75 characters (12 + 60).
const maxWordBytes = 45

// encodeWords encodes s as B-encoded words (RFC 2047) of whole characters, one per folded line, so that the header
// stays within the line length RFC 5322 asks for however long the names in it are. Decoders join adjacent
// encoded words without the folding white space between them.
func encodeWords(s string) string {
	var words []string
	for len(s) > 0 {
		n := 0
		for n < len(s) {
			_, size := utf8.DecodeRuneInString(s[n:])
			if n+size > maxWordBytes {
				break
			}
			n += size
		}
		words = append(words, "=?utf-8?b?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, "\r\n ")
}
