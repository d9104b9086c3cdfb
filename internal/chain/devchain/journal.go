package devchain

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// The journal is what a dev chain kept in DataDir is made of: an append-only file of the transactions it accepted
// and the blocks it sealed, each record fsync'd before the chain acknowledges it (the RPC answer to
// eth_sendRawTransaction, the block becoming visible). go-ethereum's own database writes without fsync and keeps the
// state of recent blocks in memory, so after SIGKILL it comes back at genesis; the journal is replayed instead, into
// a chain held in memory, and gives back every block and pooled transaction anyone could have seen.
//
// Record: 4-byte big-endian length n, 4-byte CRC-32C of the n bytes, then n bytes: one kind byte and its payload.
// A record cut short by a crash (short or failing its checksum) at the end of the file was never acknowledged: it is
// cut off when the journal is opened.

const (
	recTx    byte = 't' // payload: one raw transaction (EIP-2718 binary) accepted into the pool
	recBlock byte = 'b' // payload: 8-byte block number, then each raw transaction as 4-byte length + bytes
)

// maxRecord bounds a record's length so that a corrupt length field is not taken for a huge allocation.
const maxRecord = 64 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type record struct {
	kind    byte
	payload []byte
}

type journal struct{ f *os.File }

// openJournal opens (creating) the journal at path, reads its records and truncates a torn tail.
func openJournal(path string) (*journal, []record, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open chain journal: %w", err)
	}
	recs, good, err := readRecords(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("truncate chain journal: %w", err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("seek chain journal: %w", err)
	}
	return &journal{f: f}, recs, nil
}

// readRecords reads records from the start of f and returns them with the offset where the last whole one ends.
func readRecords(f *os.File) ([]record, int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, fmt.Errorf("seek chain journal: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<16)
	var recs []record
	var good int64
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return recs, good, nil // end of file, or a header cut short
		}
		n := binary.BigEndian.Uint32(head[:4])
		if n == 0 || n > maxRecord {
			return recs, good, nil
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return recs, good, nil
		}
		if crc32.Checksum(body, crcTable) != binary.BigEndian.Uint32(head[4:]) {
			return recs, good, nil
		}
		recs = append(recs, record{kind: body[0], payload: body[1:]})
		good += int64(len(head)) + int64(n)
	}
}

// append writes one record and fsyncs it. A failed write may leave a torn record behind; the caller stops
// acknowledging anything after an error, and the next open cuts it off.
func (j *journal) append(kind byte, payload []byte) error {
	buf := make([]byte, 9+len(payload))
	binary.BigEndian.PutUint32(buf[:4], uint32(1+len(payload)))
	buf[8] = kind
	copy(buf[9:], payload)
	binary.BigEndian.PutUint32(buf[4:8], crc32.Checksum(buf[8:], crcTable))
	if _, err := j.f.Write(buf); err != nil {
		return fmt.Errorf("write chain journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync chain journal: %w", err)
	}
	return nil
}

func (j *journal) close() error { return j.f.Close() }

// encodeBlock is a recBlock payload.
func encodeBlock(number uint64, txs [][]byte) []byte {
	size := 8
	for _, tx := range txs {
		size += 4 + len(tx)
	}
	out := make([]byte, 8, size)
	binary.BigEndian.PutUint64(out, number)
	for _, tx := range txs {
		out = binary.BigEndian.AppendUint32(out, uint32(len(tx)))
		out = append(out, tx...)
	}
	return out
}

var errBadBlock = errors.New("malformed block record")

// decodeBlock reads a recBlock payload.
func decodeBlock(p []byte) (uint64, [][]byte, error) {
	if len(p) < 8 {
		return 0, nil, errBadBlock
	}
	number := binary.BigEndian.Uint64(p)
	p = p[8:]
	var txs [][]byte
	for len(p) > 0 {
		if len(p) < 4 {
			return 0, nil, errBadBlock
		}
		n := binary.BigEndian.Uint32(p)
		if uint64(len(p)-4) < uint64(n) {
			return 0, nil, errBadBlock
		}
		txs = append(txs, p[4:4+n])
		p = p[4+n:]
	}
	return number, txs, nil
}
