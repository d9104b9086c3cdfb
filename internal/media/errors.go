package media

import (
	"errors"
	"fmt"
)

// FieldImage is the multipart form field that carries the upload; every *Error names it as its Field.
const FieldImage = "image"

// The kinds of rejection. Process returns them wrapped in *Error, so match with errors.Is.
var (
	// ErrUnsupportedType means the content is not a PNG, JPEG or SVG (whatever the client claimed).
	ErrUnsupportedType = errors.New("unsupported image type")
	// ErrFileTooLarge means the upload has more bytes than Limits.MaxBytes.
	ErrFileTooLarge = errors.New("image file too large")
	// ErrTooLarge means the width or height exceeds Limits.MaxWidth or Limits.MaxHeight.
	ErrTooLarge = errors.New("image dimensions too large")
	// ErrTooManyPixels means width*height exceeds Limits.MaxPixels, or that decoding the image would take more memory
	// than the whole Limits.DecodeBudget.
	ErrTooManyPixels = errors.New("image has too many pixels")
	// ErrCorrupt means the content looks like a supported type but cannot be parsed (truncated, malformed, empty).
	ErrCorrupt = errors.New("image is corrupt")
	// ErrUnsafeSVG means an SVG carries a DOCTYPE or ENTITY declaration, which is refused outright (XXE, entity
	// expansion bombs).
	ErrUnsafeSVG = errors.New("unsafe svg")
)

// Error is a rejected upload. Err is one of the sentinel errors above; Field and Reason are safe to show to the API
// client (Reason says precisely why); Cause is the underlying parser error, for logs only, and may be nil.
type Error struct {
	Err    error
	Field  string
	Reason string
	Cause  error
}

func (e *Error) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("media: %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("media: %s: %s: %v", e.Field, e.Reason, e.Cause)
}

// Unwrap returns the sentinel and the cause so that errors.Is matches either.
func (e *Error) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

func reject(kind error, cause error, format string, args ...any) *Error {
	return &Error{Err: kind, Field: FieldImage, Reason: fmt.Sprintf(format, args...), Cause: cause}
}
