package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkScanBody10k measures the body scan (duplicate keys, NUL, invalid UTF-8) on an issuance body of 10,000 recipients (0.9 MB),
// beside the decode every request pays anyway:
//
//	go test -run '^$' -bench ScanBody10k -benchmem ./api/
func BenchmarkScanBody10k(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"programId":"8d1b0a4e-2f3c-4b5d-9e6f-0a1b2c3d4e5f","recipients":[`)
	for i := range 10_000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name":"Recipient %d","email":"r%d@example.com","receiveType":"EMAIL","sourcedId":"s-%d"}`, i, i, i)
	}
	sb.WriteString("]}")
	body := []byte(sb.String())
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if p, _ := scanBody(body); p != bodyOK {
				b.Fatal("the body is clean")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
