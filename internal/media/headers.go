package media

// serveCSP is sent with every served media file. SVG is a document format: opened directly in a browser tab, an SVG
// runs its scripts with our origin. default-src 'none' and sandbox disable scripts, plugins, forms and every fetch;
// inline style stays allowed because many SVG editors emit style attributes and <style> elements.
const serveCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// ServeHeaders returns the response headers for serving a stored media file of the given content type. It is the
// one place that decides them. A content type other than the three that Process produces is served as an opaque
// download (application/octet-stream, attachment) so that nothing unexpected is ever rendered inline.
func ServeHeaders(contentType string) map[string]string {
	h := map[string]string{
		"Content-Type":            contentType,
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": serveCSP,
	}
	switch contentType {
	case ContentTypePNG, ContentTypeJPEG, ContentTypeSVG:
	default:
		h["Content-Type"] = "application/octet-stream"
		h["Content-Disposition"] = "attachment"
	}
	return h
}
