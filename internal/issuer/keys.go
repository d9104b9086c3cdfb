package issuer

// Object keys of an assertion's artifacts, derived from its id so a retried step writes the same key.

// CredentialKey is where the published credential JSON is stored.
func CredentialKey(assertion string) string { return "credentials/" + assertion + ".json" }

// BakedKey is where the baked badge image is stored.
func BakedKey(assertion, contentType string) string {
	ext := "png"
	if contentType == "image/svg+xml" {
		ext = "svg"
	}
	return "baked/" + assertion + "." + ext
}

// CertificateKey is where a rendering of an assertion's PDF certificate is kept: variant names what was drawn
// (state, language, layout), so each is its own object and none is served for another.
func CertificateKey(assertion, variant string) string {
	return "certificates/" + assertion + "/" + variant + ".pdf"
}

// MediaKey is where a variant of an uploaded image is stored.
func MediaKey(media, variant, ext string) string { return "media/" + media + "/" + variant + "." + ext }
