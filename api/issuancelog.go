package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/badged/badged/internal/issuancelog"
)

// The issuance log's cache lifetimes (C2SP tlog-tiles): a full tile never changes; a partial one and the
// checkpoint change with the next batch, so caches keep them briefly.
const (
	cacheFullTile    = "public, max-age=31536000, immutable"
	cachePartialTile = "public, max-age=10"
	cacheCheckpoint  = "public, max-age=5"
)

// getLogCheckpoint answers the organization's issuance log checkpoint, a C2SP signed note (text/plain), signed
// with the Ed25519 key its controller document lists; 404 while the log is empty.
func (h *handler) getLogCheckpoint(w http.ResponseWriter, r *http.Request) error {
	org, err := parseUUID(chi.URLParam(r, "orgId"))
	if err != nil {
		return newError(codeNotFound, "no such issuer")
	}
	note, _, err := issuancelog.Head(r.Context(), h.db.Queries, org)
	if errors.Is(err, issuancelog.ErrNotFound) {
		return newError(codeNotFound, "issuer %s has no issuance log entries yet", org)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", cacheCheckpoint)
	return h.writeLogBody(w, r, []byte(note), "text/plain; charset=utf-8")
}

// getLogTile answers a hash tile ("tile/<L>/<N>[.p/<W>]") or an entry bundle ("tile/entries/<N>[.p/<W>]") of the
// organization's issuance log; anything past the tree size of its latest checkpoint is 404.
func (h *handler) getLogTile(w http.ResponseWriter, r *http.Request) error {
	org, err := parseUUID(chi.URLParam(r, "orgId"))
	if err != nil {
		return newError(codeNotFound, "no such issuer")
	}
	tile, err := issuancelog.ParseTilePath(chi.URLParam(r, "*"))
	if err != nil {
		return newError(codeNotFound, "no such tile")
	}
	data, cached := h.logTiles.Get(org, tile) // a full tile, once served, is served from memory for good
	if !cached {
		var size int64
		_, size, err = issuancelog.Head(r.Context(), h.db.Queries, org)
		if err == nil {
			data, err = issuancelog.ReadTile(r.Context(), h.db.Queries, org, tile, size)
		}
		if err == nil {
			h.logTiles.Put(org, tile, data)
		}
	}
	if errors.Is(err, issuancelog.ErrNotFound) {
		return newError(codeNotFound, "no such tile in the issuance log of issuer %s", org)
	}
	if err != nil {
		return err
	}
	if issuancelog.Full(tile) {
		w.Header().Set("Cache-Control", cacheFullTile)
	} else {
		w.Header().Set("Cache-Control", cachePartialTile)
	}
	return h.writeLogBody(w, r, data, "application/octet-stream")
}

func (h *handler) writeLogBody(w http.ResponseWriter, r *http.Request, body []byte, contentType string) error {
	w.Header().Set("Access-Control-Allow-Origin", "*") // monitors and witnesses in browsers read it too
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if _, err := w.Write(body); err != nil {
		h.log.WarnContext(r.Context(), "write issuance log", "err", err)
	}
	return nil
}
