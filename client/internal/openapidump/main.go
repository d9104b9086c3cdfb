// Command openapidump writes the rendered OpenAPI document of one API version, the input of the generated client
// (client/v3/generate.go): go run ./client/internal/openapidump -version 3 -o client/v3/openapi.json
//
// It imports only api, whose rendered OpenAPI document it writes.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/badged/badged/api"
)

func main() {
	v := flag.Int("version", 3, "API version: 2 or 3")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()
	if err := run(*v, *out); err != nil {
		fmt.Fprintln(os.Stderr, "openapidump:", err)
		os.Exit(1)
	}
}

func run(v int, out string) error {
	doc, err := api.OpenAPIDocument(v)
	if err != nil {
		return err
	}
	var buf bytes.Buffer // indented, so a change of the document reads as a diff in review
	if err := json.Indent(&buf, doc, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	if out == "" {
		_, err = os.Stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
