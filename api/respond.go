package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
)

// envelope is the contract's wrapper of every single JSON response.
type envelope struct {
	Success bool    `json:"success"`
	Message *string `json:"message"`
	Data    any     `json:"data"`
}

// listData is data of a list response.
type listData[T any] struct {
	Items      []T        `json:"items"`
	Pagination pagination `json:"pagination"`
}

type pagination struct {
	Page         int   `json:"page"`
	Size         int   `json:"size"`
	TotalElement int64 `json:"totalElement"`
	TotalPages   int64 `json:"totalPages"`
	First        bool  `json:"first"`
	Last         bool  `json:"last"`
	Empty        bool  `json:"empty"`
}

func newPagination(p pageRequest, total int64, items int) pagination {
	pages := (total + int64(p.size) - 1) / int64(p.size)
	return pagination{
		Page:         p.page,
		Size:         p.size,
		TotalElement: total,
		TotalPages:   pages,
		First:        p.page == 1,
		Last:         int64(p.page) >= pages,
		Empty:        items == 0,
	}
}

func writeJSON(w http.ResponseWriter, log *slog.Logger, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Warn("write response", "err", err)
	}
}

// ok answers 200 with data in the envelope.
func (h *handler) ok(w http.ResponseWriter, data any) {
	writeJSON(w, h.log, http.StatusOK, envelope{Success: true, Data: data})
}

// okList answers 200 with a page of items.
func okList[T any](h *handler, w http.ResponseWriter, p pageRequest, total int64, items []T) {
	if items == nil {
		items = []T{}
	}
	h.ok(w, listData[T]{Items: items, Pagination: newPagination(p, total, len(items))})
}
