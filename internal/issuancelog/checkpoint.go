package issuancelog

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Origin is the log's name, the first line of its checkpoints and the name of its note key (C2SP
// tlog-checkpoint): "<host>/issuers/<org>/log", the issuer id's URL without its scheme, so that it names exactly
// the log served under {issuer id}/log/.
func Origin(baseURL string, org uuid.UUID) string {
	host := baseURL
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		host = u.Host + strings.TrimRight(u.Path, "/")
	}
	return host + "/issuers/" + org.String() + "/log"
}

// Checkpoint is the body of a C2SP checkpoint: origin, tree size and root hash.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// Text is the checkpoint's note text, each line ending in a newline.
func (c Checkpoint) Text() string {
	return c.Origin + "\n" + strconv.FormatInt(c.Size, 10) + "\n" + base64.StdEncoding.EncodeToString(c.Root[:]) + "\n"
}

// ParseCheckpoint reads a checkpoint's note text (extension lines after the root are allowed and ignored).
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 {
		return Checkpoint{}, fmt.Errorf("checkpoint: fewer than three lines")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || lines[1] != strconv.FormatInt(size, 10) {
		return Checkpoint{}, fmt.Errorf("checkpoint: tree size %q", lines[1])
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return Checkpoint{}, fmt.Errorf("checkpoint: root hash %q", lines[2])
	}
	c := Checkpoint{Origin: lines[0], Size: size}
	copy(c.Root[:], root)
	return c, nil
}

// signer signs notes with an organization's Ed25519 issuer key under the log's origin (note.Signer).
type signer struct {
	name string
	hash uint32
	key  ed25519.PrivateKey
}

func (s signer) Name() string                    { return s.name }
func (s signer) KeyHash() uint32                 { return s.hash }
func (s signer) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }

// NewVerifier is the note verifier of a log's key: the Ed25519 public key the organization's controller document
// lists, named by the log's origin.
func NewVerifier(origin string, pub ed25519.PublicKey) (note.Verifier, error) {
	vkey, err := note.NewEd25519VerifierKey(origin, pub)
	if err != nil {
		return nil, err
	}
	return note.NewVerifier(vkey)
}

// SignCheckpoint returns the signed note of a checkpoint.
func SignCheckpoint(c Checkpoint, key ed25519.PrivateKey) (string, error) {
	v, err := NewVerifier(c.Origin, key.Public().(ed25519.PublicKey))
	if err != nil {
		return "", err
	}
	msg, err := note.Sign(&note.Note{Text: c.Text()}, signer{name: c.Origin, hash: v.KeyHash(), key: key})
	if err != nil {
		return "", err
	}
	return string(msg), nil
}

// OpenCheckpoint verifies a signed checkpoint note with the log's key and returns its checkpoint; the origin must
// be the one expected.
func OpenCheckpoint(signed []byte, origin string, pub ed25519.PublicKey) (Checkpoint, error) {
	v, err := NewVerifier(origin, pub)
	if err != nil {
		return Checkpoint{}, err
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint signature: %w", err)
	}
	c, err := ParseCheckpoint(n.Text)
	if err != nil {
		return Checkpoint{}, err
	}
	if c.Origin != origin {
		return Checkpoint{}, fmt.Errorf("checkpoint origin %q, expected %q", c.Origin, origin)
	}
	return c, nil
}
