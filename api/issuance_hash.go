package api

import (
	"encoding/json"
	"strconv"
	"time"
)

// normalizedJSON is what a v3 request hash is taken over: the normalized request as json.Marshal writes
//
//	struct {
//		Recipients []recipient `json:"recipients"`
//		ProgramID  uuid.UUID   `json:"programId"`
//		IssuedAt   *string     `json:"issuedAt"` // RFC 3339 in UTC, nanoseconds as needed
//	}
//
// byte for byte (stored hashes must keep matching their retries; TestNormalizedJSONIsMarshal holds it to
// json.Marshal), written without reflection: json.Marshal took ~6% of a 100,000-recipient POST.
func (req issuanceRequest) normalizedJSON() ([]byte, error) {
	buf := make([]byte, 0, 64+len(req.Recipients)*96)
	buf = append(buf, `{"recipients":`...)
	if req.Recipients == nil {
		buf = append(buf, "null"...)
	} else {
		buf = append(buf, '[')
		for i, r := range req.Recipients {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = r.appendJSON(buf); err != nil {
				return nil, err
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, `,"programId":"`...)
	buf = append(buf, req.ProgramID.String()...)
	buf = append(buf, `","issuedAt":`...)
	if req.IssuedAt == nil {
		buf = append(buf, "null"...)
	} else {
		buf = appendJSONString(buf, req.IssuedAt.UTC().Format(time.RFC3339Nano))
	}
	return append(buf, '}'), nil
}

// appendJSON appends the recipient as json.Marshal writes it (its struct tags).
func (r recipient) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"name":`...)
	buf = appendJSONString(buf, r.Name)
	for _, f := range []struct {
		key string
		val *string
	}{{`,"email":`, r.Email}, {`,"phoneNumber":`, r.PhoneNumber}, {`,"sourcedId":`, r.SourcedID}} {
		buf = append(buf, f.key...)
		if f.val == nil {
			buf = append(buf, "null"...)
		} else {
			buf = appendJSONString(buf, *f.val)
		}
	}
	buf = append(buf, `,"receiveType":`...)
	buf = appendJSONString(buf, r.ReceiveType)
	if len(r.Evidence) > 0 {
		ev, err := json.Marshal(r.Evidence)
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, `,"evidence":`...), ev...)
	}
	return append(buf, '}'), nil
}

// appendJSONString appends s quoted as json.Marshal quotes it: printable ASCII other than the characters it
// escapes (" \\ and, for HTML, < > &) as it is, anything else through json.Marshal.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(buf, q...)
		}
	}
	return strconv.AppendQuote(buf, s) // plain: Go's quoting adds nothing but the quotes
}
