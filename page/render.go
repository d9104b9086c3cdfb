package page

import (
	"context"
	"fmt"
	"runtime/debug"
)

// renderFault, when set, runs inside every render slot before the renderer: the tests' way to make a renderer
// panic (export_test.go). Production code never sets it.
var renderFault func(renderer string)

// render runs one CPU-heavy render (renderer names it in logs: "certificate", "preview") in a slot of h.renders,
// the bound every renderer shares. It waits for a slot or the request's end, always gives the slot back (defer),
// and turns a panic of the renderer into an error of this request alone, logged with its stack: no input can keep
// a slot, and so no tenant's input can stop the renders of every other.
func (h *Handler) render(ctx context.Context, renderer string, draw func() ([]byte, error)) (out []byte, err error) {
	select {
	case h.renders <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-h.renders }()
	defer func() {
		if p := recover(); p != nil {
			h.log.ErrorContext(ctx, "renderer panicked", "renderer", renderer, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out, err = nil, fmt.Errorf("render %s: panic: %v", renderer, p)
		}
	}()
	if renderFault != nil {
		renderFault(renderer)
	}
	return draw()
}
