package smtptest

// The journal: every accepted message as one JSON line, so a server that runs as its own process keeps its record across kill -9.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// openJournal opens the journal for appending. A last line cut short by a kill -9 mid-write belongs to a message
// that was never answered 250, so it is dropped.
func openJournal(path string) (*os.File, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if err := os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1)); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// ReadJournal returns the messages a server with Options.Journal accepted, oldest first, across restarts.
func ReadJournal(path string) ([]Message, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []Message
	dec := json.NewDecoder(f)
	for {
		var m Message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return msgs, nil // a message being written now (or cut by a kill -9): not accepted yet
		}
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		msgs = append(msgs, m)
	}
}
