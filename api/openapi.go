package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// openAPISource is the one hand-kept OpenAPI document of both versions; renderOpenAPI makes each version's.
//
//go:embed openapi.yaml
var openAPISource []byte

// commonErrors are the codes every request behind X-API-KEY can meet, whatever the operation: the request guard
// (guard.go: bad text 400, target 414, headers 431), authentication, the rate limit and the internal-error funnel.
var commonErrors = []string{codeFormat, codeValidation, "414:" + codeValidation, "431:" + codeValidation, codeAuth,
	codeTooMany, codeInternal}

// openAPIDocs caches each version's rendered JSON: the source is embedded, so it never changes while running.
var openAPIDocs = struct {
	once sync.Once
	json map[version][]byte
	err  error
}{}

// OpenAPIDocument is the rendered OpenAPI document (JSON) of API version 2 or 3.
func OpenAPIDocument(n int) ([]byte, error) {
	openAPIDocs.once.Do(func() {
		openAPIDocs.json = map[version][]byte{}
		for _, v := range versions {
			b, err := renderOpenAPI(openAPISource, v)
			if err != nil {
				openAPIDocs.err = fmt.Errorf("openapi v%d: %w", v, err)
				return
			}
			openAPIDocs.json[v] = b
		}
	})
	if openAPIDocs.err != nil {
		return nil, openAPIDocs.err
	}
	b, ok := openAPIDocs.json[version(n)]
	if !ok {
		return nil, fmt.Errorf("no API version %d", n)
	}
	return b, nil
}

// serveOpenAPI answers GET /public/v{2,3}/openapi.json, without an API key.
func (h *handler) serveOpenAPI(v version) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		doc, err := OpenAPIDocument(int(v))
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(doc)
		return nil
	}
}

// renderOpenAPI turns the source into version v's document: it picks the x-v2/x-v3 values and expands x-errors
// into responses (the rules are at the top of openapi.yaml).
func renderOpenAPI(src []byte, v version) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	rendered, keep := pickVersion(doc, "x-v"+strconv.Itoa(int(v)))
	if !keep {
		return nil, fmt.Errorf("the document has no value for this version")
	}
	doc = rendered.(map[string]any)
	meanings, _ := doc["x-error-codes"].(map[string]any)
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			if err := expandErrors(op, meanings); err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), path, err)
			}
			addResponseHeaders(op, hasKey(op))
		}
	}
	pruneComponents(doc)
	return json.Marshal(doc)
}

// hasKey reports whether op is behind X-API-KEY: it keeps the document's security, or names apiKey (the wallet
// protocols clear it or name the wallet's access token).
func hasKey(op map[string]any) bool {
	sec, ok := op["security"].([]any)
	if !ok {
		return true
	}
	for _, req := range sec {
		if m, ok := req.(map[string]any); ok && m["apiKey"] != nil {
			return true
		}
	}
	return false
}

// addResponseHeaders documents the headers the middleware adds: X-Request-Id on every answer, the rate limit's on
// the answers of keyed operations, Retry-After on 429.
func addResponseHeaders(op map[string]any, keyed bool) {
	responses, _ := op["responses"].(map[string]any)
	for status, res := range responses {
		res, ok := res.(map[string]any)
		if !ok {
			continue
		}
		headers, _ := res["headers"].(map[string]any)
		if headers == nil {
			headers = map[string]any{}
			res["headers"] = headers
		}
		headers["X-Request-Id"] = map[string]any{"$ref": "#/components/headers/X-Request-Id"}
		if keyed {
			headers["RateLimit-Limit"] = map[string]any{"$ref": "#/components/headers/RateLimit-Limit"}
			headers["RateLimit-Remaining"] = map[string]any{"$ref": "#/components/headers/RateLimit-Remaining"}
		}
		if status == "429" {
			headers["Retry-After"] = map[string]any{"$ref": "#/components/headers/Retry-After"}
		}
	}
}

// pruneComponents leaves out the components nothing outside them refers to, directly or through other components:
// a schema only the v3 extension uses is not in the v2 document.
func pruneComponents(doc map[string]any) {
	components, _ := doc["components"].(map[string]any)
	used := map[string]bool{}
	var walk func(node any)
	walk = func(node any) {
		switch n := node.(type) {
		case map[string]any:
			if ref, ok := n["$ref"].(string); ok && !used[ref] {
				used[ref] = true
				if rest, ok := strings.CutPrefix(ref, "#/components/"); ok {
					if kind, name, ok := strings.Cut(rest, "/"); ok {
						if group, ok := components[kind].(map[string]any); ok {
							walk(group[name])
						}
					}
				}
			}
			for _, v := range n {
				walk(v)
			}
		case []any:
			for _, v := range n {
				walk(v)
			}
		}
	}
	for k, v := range doc {
		if k != "components" {
			walk(v)
		}
	}
	for kind, group := range components {
		group, ok := group.(map[string]any)
		if !ok || kind == "securitySchemes" {
			continue
		}
		for name := range group {
			if !used["#/components/"+kind+"/"+name] {
				delete(group, name)
			}
		}
	}
}

// pickVersion applies the x-v2/x-v3 rule to a decoded YAML node; keep is false when the node has no value for the
// version and must be left out of its parent.
func pickVersion(node any, key string) (out any, keep bool) {
	switch n := node.(type) {
	case map[string]any:
		if isVersionChoice(n) {
			val, ok := n[key]
			if !ok {
				return nil, false
			}
			return pickVersion(val, key)
		}
		out := make(map[string]any, len(n))
		for k, val := range n {
			if val, ok := pickVersion(val, key); ok {
				out[k] = val
			}
		}
		return out, true
	case []any:
		out := make([]any, 0, len(n))
		for _, val := range n {
			if val, ok := pickVersion(val, key); ok {
				out = append(out, val)
			}
		}
		return out, true
	}
	return node, true
}

func isVersionChoice(n map[string]any) bool {
	if len(n) == 0 {
		return false
	}
	for k := range n {
		if k != "x-v2" && k != "x-v3" {
			return false
		}
	}
	return true
}

// expandErrors adds a response per HTTP status of the operation's x-errors (plus commonErrors when it needs a
// key), whose schema is the error body restricted to those codes and that status.
func expandErrors(op map[string]any, meanings map[string]any) error {
	raw, ok := op["x-errors"].([]any)
	if !ok {
		return fmt.Errorf("x-errors is missing")
	}
	codes := make([]string, 0, len(raw)+len(commonErrors))
	for _, c := range raw {
		codes = append(codes, fmt.Sprint(c))
	}
	if hasKey(op) {
		codes = append(codes, commonErrors...)
	}
	byStatus := map[int][]string{}
	for _, c := range codes {
		status, code := 0, c
		if s, rest, ok := strings.Cut(c, ":"); ok {
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("x-errors entry %q: %w", c, err)
			}
			status, code = n, rest
		} else {
			status = statusOf(code)
		}
		if _, ok := meanings[code]; !ok {
			return fmt.Errorf("error code %s has no meaning in x-error-codes", code)
		}
		if !slices.Contains(byStatus[status], code) {
			byStatus[status] = append(byStatus[status], code)
		}
	}
	responses, _ := op["responses"].(map[string]any)
	if responses == nil {
		return fmt.Errorf("no responses")
	}
	for status, codes := range byStatus {
		slices.Sort(codes)
		var desc []string
		for _, c := range codes {
			desc = append(desc, fmt.Sprintf("%s: %s", c, meanings[c]))
		}
		key := strconv.Itoa(status)
		if _, dup := responses[key]; dup {
			return fmt.Errorf("response %s is written by hand and by x-errors", key)
		}
		enum := make([]any, len(codes))
		for i, c := range codes {
			enum[i] = c
		}
		responses[key] = map[string]any{
			"description": strings.Join(desc, "; "),
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
				"$ref": "#/components/schemas/Error",
				"properties": map[string]any{"error": map[string]any{"properties": map[string]any{
					"code":   map[string]any{"enum": enum},
					"status": map[string]any{"const": status},
				}}},
			}}},
		}
	}
	return nil
}
