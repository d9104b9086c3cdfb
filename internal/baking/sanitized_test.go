package baking

import (
	"context"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/media"
)

// editorSVG is an upload as an editor writes it: prefixed namespaces, editor metadata, a stylesheet, gradients
// referenced by fragment, an external link and a script. Uploads are sanitized before they are stored and baked.
const editorSVG = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
  xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:dc="http://purl.org/dc/elements/1.1/"
  width="256" height="256" viewBox="0 0 256 256" onload="alert(1)">
  <metadata><dc:title>Badge</dc:title></metadata>
  <inkscape:namedview pagecolor="#ffffff"/>
  <style>.ring { stroke: url(#g); } @import url(https://evil.example/x.css);</style>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#1565c0"/></linearGradient></defs>
  <a xlink:href="https://evil.example/"><circle class="ring" cx="128" cy="128" r="100" fill="url(#g)"/></a>
  <use xlink:href="#g" inkscape:label="copy"/>
  <script>alert(2)</script>
</svg>
`

// Baking works on what the media sanitizer stores: the credential goes in and comes out, and the document stays
// well-formed with its rendering content.
func TestBakeSVG_SanitizedUpload(t *testing.T) {
	res, err := media.NewProcessor(media.Limits{}).Process(context.Background(), []byte(editorSVG))
	require.NoError(t, err)
	clean := string(res.Original)
	for _, gone := range []string{"<script", "onload", "evil.example", "inkscape:namedview", "<style"} {
		require.NotContains(t, clean, gone)
	}

	out, ct, err := Bake(res.Original, testCredential)
	require.NoError(t, err)
	require.Equal(t, ContentTypeSVG, ct)
	root, child, _ := firstChild(t, out)
	require.Equal(t, xml.Name{Space: "http://www.w3.org/2000/svg", Local: "svg"}, root.Name)
	require.Equal(t, xml.Name{Space: NamespaceOB3, Local: "credential"}, child.Name)
	got, err := Unbake(out)
	require.NoError(t, err)
	require.Equal(t, testCredential, got)
	require.Contains(t, string(out), `<circle class="ring" cx="128" cy="128" r="100" fill="url(#g)"></circle>`)
	require.Contains(t, string(out), `<use xlink:href="#g" inkscape:label="copy"></use>`)
}
