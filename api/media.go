package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/media"
)

// mediaVariants are the stored sizes of every image, in the order of the response.
var mediaVariants = []string{"original", "medium", "small"}

type imageURLs struct {
	Original string `json:"original"`
	Medium   string `json:"medium"`
	Small    string `json:"small"`
}

// imageResponse is the contract's image object (image, signatureImage, media file upload).
type imageResponse struct {
	ID   string    `json:"id"`
	URLs imageURLs `json:"urls"`
}

// image builds the image object; URLs need only the id, so no row is read to answer a program or badge.
func (h *handler) image(id uuid.UUID) imageResponse {
	base := h.baseURL + "/media/" + id.String() + "/"
	return imageResponse{ID: id.String(), URLs: imageURLs{Original: base + "original", Medium: base + "medium", Small: base + "small"}}
}

func (h *handler) imagePtr(id *uuid.UUID) *imageResponse {
	if id == nil {
		return nil
	}
	img := h.image(*id)
	return &img
}

func mediaKey(id uuid.UUID, variant, ext string) string {
	return issuer.MediaKey(id.String(), variant, ext)
}

// uploadImage stores an uploaded image in three sizes. The row is written only after every file is stored, so
// an image id never points at missing files.
func (h *handler) uploadImage(w http.ResponseWriter, r *http.Request) error {
	data, err := h.readImagePart(w, r)
	if err != nil {
		return err
	}
	// Process waits for room in the decode budget, shared by all uploads, for as long as the client waits.
	res, err := h.images.Process(r.Context(), data)
	if err != nil {
		return mediaError(err)
	}
	id := uuid.New()
	for _, v := range []struct {
		name string
		data []byte
	}{{"original", res.Original}, {"medium", res.Medium}, {"small", res.Small}} {
		if err := h.blob.Put(r.Context(), mediaKey(id, v.name, res.Ext), v.data, res.ContentType); err != nil {
			return fmt.Errorf("store image: %w", err)
		}
	}
	p := principalOf(r.Context())
	if _, err := h.db.CreateMediaFile(r.Context(), db.CreateMediaFileParams{ID: id, OrgID: p.OrgID,
		ContentType: res.ContentType, Ext: res.Ext, Width: int32(res.Width), Height: int32(res.Height),
		SizeBytes: int64(len(res.Original))}); err != nil {
		return err
	}
	h.ok(w, h.image(id))
	return nil
}

// readImagePart streams the multipart body to the part named "image", reading at most the size limit.
func (h *handler) readImagePart(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" || params["boundary"] == "" {
		return nil, &apiError{status: statusOf(codeFormat), code: codeFormat,
			msg:    "the request must be multipart/form-data with a file part named image",
			fields: []fieldError{{Field: "image", Message: "send multipart/form-data with a part named image", format: true}}}
	}
	limit := int64(h.images.Limits().MaxBytes)
	tooLarge := &apiError{status: http.StatusRequestEntityTooLarge, code: codeValidation,
		msg:    fmt.Sprintf("image is larger than %d bytes", limit),
		fields: []fieldError{{Field: "image", Message: "must be at most " + strconv.FormatInt(limit, 10) + " bytes"}}}
	if r.ContentLength > limit+64<<10 {
		return nil, tooLarge // answered unread: a client waiting on "Expect: 100-continue" never sends it
	}
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, limit+64<<10), params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, fieldsError([]fieldError{{Field: "image", Message: "is required: a file part named image"}})
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		if err != nil {
			return nil, newError(codeFormat, "the multipart body is malformed")
		}
		if part.FormName() != "image" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, limit+1))
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		if err != nil {
			return nil, newError(codeFormat, "the multipart body is malformed")
		}
		if int64(len(data)) > limit {
			return nil, tooLarge
		}
		if len(data) == 0 {
			return nil, fieldsError([]fieldError{{Field: "image", Message: "is empty"}})
		}
		return data, nil
	}
}

// mediaError turns a media.Process failure into the field error a client can act on.
func mediaError(err error) error {
	switch {
	case errors.Is(err, media.ErrUnsupportedType), errors.Is(err, media.ErrCorrupt):
		return fieldsError([]fieldError{{Field: "image", Message: err.Error(), format: true}})
	case errors.Is(err, media.ErrFileTooLarge):
		return &apiError{status: http.StatusRequestEntityTooLarge, code: codeValidation, msg: "image: " + err.Error(),
			fields: []fieldError{{Field: "image", Message: err.Error()}}}
	case errors.Is(err, media.ErrTooLarge), errors.Is(err, media.ErrTooManyPixels), errors.Is(err, media.ErrUnsafeSVG):
		return fieldsError([]fieldError{{Field: "image", Message: err.Error()}})
	}
	return err
}

// serveMedia serves a stored image publicly (badge images are public by nature). SVG gets headers under which a
// script inside it cannot run.
func (h *handler) serveMedia(w http.ResponseWriter, r *http.Request) error {
	id, err := parseUUID(chi.URLParam(r, "mediaID"))
	variant := chi.URLParam(r, "variant")
	if err != nil || !slices.Contains(mediaVariants, variant) {
		return newError(codeNotFound, "no such image")
	}
	m, err := h.db.GetMediaFileAnyOrg(r.Context(), id)
	if db.IsNotFound(err) {
		return newError(codeNotFound, "no such image")
	}
	if err != nil {
		return err
	}
	rc, info, err := h.blob.Get(r.Context(), mediaKey(id, variant, m.Ext))
	if errors.Is(err, blob.ErrNotFound) {
		return newError(codeNotFound, "no such image")
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	for k, v := range media.ServeHeaders(m.ContentType) {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size, 10))
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable") // an id's bytes never change
	if _, err := io.Copy(w, rc); err != nil {
		h.log.WarnContext(r.Context(), "serve media", "err", err)
	}
	return nil
}
