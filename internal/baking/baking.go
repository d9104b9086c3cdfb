// Package baking embeds an Open Badges credential in a badge image (PNG or SVG) and reads it back.
//
// Baking follows the Open Badges 3.0 specification, section "Baking": a PNG carries the credential in one iTXt chunk
// with the keyword "openbadgecredential"; an SVG carries it in one <openbadges:credential> element, the first child of
// the root <svg>. A JPEG badge is converted to PNG first. Every failure is an *errcode.Error with the code
// BADGE_IMAGE_BAKING_FAILED, so the issuance step can record it on the assertion.
//
// It imports only internal/errcode.
package baking

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/badged/badged/internal/errcode"
)

// Content types returned by Bake.
const (
	ContentTypePNG = "image/png"
	ContentTypeSVG = "image/svg+xml"
)

// Limits on what Bake and Unbake accept. They bound memory and CPU for images that come from users.
const (
	// MaxImageBytes is the largest input image, and the largest baked output.
	MaxImageBytes = 16 << 20
	// MaxChunkBytes is the largest single PNG chunk.
	MaxChunkBytes = 8 << 20
	// MaxCredentialBytes is the largest credential that is baked or read back (also after decompression).
	MaxCredentialBytes = 1 << 20
	// MaxPixels is the largest JPEG (width × height) that is decoded for conversion to PNG.
	MaxPixels = 25_000_000
)

// ErrNoCredential is wrapped in the error that Unbake returns for an image that carries no credential.
var ErrNoCredential = errors.New("image carries no credential")

// ErrUnsupportedFormat is wrapped in the error returned for an input that is not PNG, JPEG or SVG.
var ErrUnsupportedFormat = errors.New("unsupported image format (want PNG, JPEG or SVG)")

// format is a sniffed image type.
type format int

const (
	formatUnknown format = iota
	formatPNG
	formatJPEG
	formatSVG
)

// sniff decides the image type from the first bytes. SVG is recognized by a leading '<' after an optional BOM and
// white space; the XML parser then decides whether it really is an SVG document.
func sniff(img []byte) format {
	switch {
	case bytes.HasPrefix(img, pngSignature):
		return formatPNG
	case bytes.HasPrefix(img, []byte{0xFF, 0xD8, 0xFF}):
		return formatJPEG
	}
	rest := bytes.TrimLeft(bytes.TrimPrefix(img, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(rest) > 0 && rest[0] == '<' {
		return formatSVG
	}
	return formatUnknown
}

// Bake embeds credential (the credential JSON, or a compact JWS for a VC-JWT credential) in the badge image img and
// returns the baked image and its content type. A PNG or SVG keeps its type; a JPEG is converted to PNG. A credential
// already baked in the image is replaced, never duplicated.
func Bake(img, credential []byte) (out []byte, contentType string, err error) {
	if err := checkCredential(credential); err != nil {
		return nil, "", bakeErr("check credential", err)
	}
	if len(img) > MaxImageBytes {
		return nil, "", bakeErr("check image", fmt.Errorf("image is %d bytes, limit %d", len(img), MaxImageBytes))
	}
	switch sniff(img) {
	case formatPNG:
		out, err = bakePNG(img, credential)
		contentType = ContentTypePNG
	case formatJPEG:
		var p []byte
		if p, err = jpegToPNG(img); err == nil {
			out, err = bakePNG(p, credential)
		}
		contentType = ContentTypePNG
	case formatSVG:
		out, err = bakeSVG(img, credential)
		contentType = ContentTypeSVG
	default:
		err = ErrUnsupportedFormat
	}
	if err != nil {
		return nil, "", bakeErr("bake image", err)
	}
	if len(out) > MaxImageBytes {
		return nil, "", bakeErr("bake image", fmt.Errorf("baked image is %d bytes, limit %d", len(out), MaxImageBytes))
	}
	return out, contentType, nil
}

// Unbake returns the credential baked in a PNG or SVG badge image: the text of the openbadgecredential iTXt chunk or
// of the <openbadges:credential> element (its verify attribute for a VC-JWT). Open Badges 2.0 images (PNG keyword
// "openbadges", SVG <openbadges:assertion>) are read too. An image without a credential gives an error wrapping
// ErrNoCredential.
func Unbake(img []byte) ([]byte, error) {
	if len(img) > MaxImageBytes {
		return nil, bakeErr("check image", fmt.Errorf("image is %d bytes, limit %d", len(img), MaxImageBytes))
	}
	var (
		cred []byte
		err  error
	)
	switch sniff(img) {
	case formatPNG:
		cred, err = unbakePNG(img)
	case formatSVG:
		cred, err = unbakeSVG(img)
	case formatJPEG:
		err = ErrNoCredential // a JPEG cannot carry a baked credential
	default:
		err = ErrUnsupportedFormat
	}
	if err != nil {
		return nil, bakeErr("unbake image", err)
	}
	return cred, nil
}

// checkCredential rejects credentials that could not be carried intact: empty, too large, not UTF-8 (iTXt text is
// UTF-8), or holding characters XML forbids (an SVG could not carry them).
func checkCredential(c []byte) error {
	if len(bytes.TrimSpace(c)) == 0 {
		return errors.New("credential is empty")
	}
	if len(c) > MaxCredentialBytes {
		return fmt.Errorf("credential is %d bytes, limit %d", len(c), MaxCredentialBytes)
	}
	if !utf8.Valid(c) {
		return errors.New("credential is not valid UTF-8")
	}
	for _, r := range string(c) {
		if !isXMLChar(r) {
			return fmt.Errorf("credential holds character %U, not allowed in XML", r)
		}
	}
	return nil
}

// isXMLChar reports whether r is a Char of XML 1.0 (section 2.2).
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// bakeErr tags err with the assertion errorCode of this step.
func bakeErr(what string, err error) error {
	return errcode.Wrap(errcode.BadgeImageBakingFailed, what, err)
}
