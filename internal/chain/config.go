package chain

import (
	"crypto/ecdsa"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/badged/badged/internal/errcode"
)

// Defaults used when the matching Config field is zero.
const (
	DefaultReceiptTimeout = 60 * time.Second
	DefaultPollInterval   = 500 * time.Millisecond
	// DefaultRepairGrace is how old an unsigned reservation must be before gap repair takes its nonce. A live
	// worker signs and saves within milliseconds of reserving, so only an abandoned reservation gets this old.
	DefaultRepairGrace = 2 * time.Minute
)

// gapCheckInterval is how often a wait for a receipt re-checks the nonce gap below it: a reservation too young to
// fill at the first check may pass the grace while the wait goes on.
const gapCheckInterval = 5 * time.Second

// Config configures an Anchorer. RPCURL and PrivateKey are required; the rest have defaults.
type Config struct {
	// RPCURL is the JSON-RPC endpoint, http(s):// or ws(s)://.
	RPCURL string
	// PrivateKey is the sender's secp256k1 key as 64 hex digits, with or without 0x.
	PrivateKey string
	// To is the address the anchor transactions are sent to; empty means the sender's own address.
	To string
	// ChainID is the chain id the node must report; 0 accepts whatever the node reports.
	ChainID uint64
	// GasLimit of each anchor transaction; 0 means the exact intrinsic cost of a 32-byte data transaction plus
	// GasHeadroom, which suffices for an externally owned target.
	GasLimit uint64
	// ReceiptTimeout bounds how long Anchor waits for a receipt before BLOCKCHAIN_TX_RESULT_UNKNOWN.
	ReceiptTimeout time.Duration
	// PollInterval is the pause between receipt polls.
	PollInterval time.Duration
	// RepairGrace is the age after which an unsigned nonce reservation that blocks an anchor is taken over by a
	// filler transaction (see Anchorer.Repairs); 0 means DefaultRepairGrace.
	RepairGrace time.Duration
}

// GasHeadroom is added to the intrinsic gas when Config.GasLimit is zero. Unused gas is refunded, so it only raises
// the balance the node requires up front.
const GasHeadroom = 10_000

// settings is a validated Config.
type settings struct {
	rpcURL         string
	key            *ecdsa.PrivateKey
	from           common.Address
	to             common.Address
	chainID        uint64
	gasLimit       uint64
	receiptTimeout time.Duration
	pollInterval   time.Duration
	repairGrace    time.Duration
	gapCheck       time.Duration
}

// validate checks cfg without any network I/O and fills in defaults.
func (cfg Config) validate() (settings, error) {
	var s settings
	if strings.TrimSpace(cfg.RPCURL) == "" {
		return s, errcode.New(errcode.BlockchainConfigMissing, "chain rpc url is not configured")
	}
	if strings.TrimSpace(cfg.PrivateKey) == "" {
		return s, errcode.New(errcode.BlockchainConfigMissing, "chain private key is not configured")
	}
	u, err := url.Parse(cfg.RPCURL)
	if err != nil {
		return s, errcode.Wrap(errcode.BlockchainConfigInvalid, "parse chain rpc url", err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return s, errcode.New(errcode.BlockchainConfigInvalid, fmt.Sprintf("chain rpc url scheme %q is not http(s) or ws(s)", u.Scheme))
	}
	if u.Host == "" {
		return s, errcode.New(errcode.BlockchainConfigInvalid, "chain rpc url has no host")
	}
	s.rpcURL = cfg.RPCURL
	key, err := ParsePrivateKey(cfg.PrivateKey)
	if err != nil {
		return s, err
	}
	s.key = key
	s.from = crypto.PubkeyToAddress(key.PublicKey)
	s.to = s.from
	if cfg.To != "" {
		if !common.IsHexAddress(cfg.To) {
			return s, errcode.New(errcode.BlockchainConfigInvalid, "chain target address is not a 20-byte hex address")
		}
		s.to = common.HexToAddress(cfg.To)
	}
	s.chainID = cfg.ChainID
	s.gasLimit = cfg.GasLimit
	if s.gasLimit == 0 {
		// A digest is up to 32 non-zero bytes; size the limit for the worst case.
		s.gasLimit = IntrinsicGas(worstCaseData[:]) + GasHeadroom
	}
	s.receiptTimeout = cfg.ReceiptTimeout
	if s.receiptTimeout <= 0 {
		s.receiptTimeout = DefaultReceiptTimeout
	}
	s.pollInterval = cfg.PollInterval
	if s.pollInterval <= 0 {
		s.pollInterval = DefaultPollInterval
	}
	s.repairGrace = cfg.RepairGrace
	if s.repairGrace <= 0 {
		s.repairGrace = DefaultRepairGrace
	}
	s.gapCheck = gapCheckInterval
	return s, nil
}

var worstCaseData = [32]byte{
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
}

// ParsePrivateKey parses a secp256k1 private key written as 64 hex digits, with or without 0x. It fails with
// BLOCKCHAIN_CONFIG_INVALID.
func ParsePrivateKey(hexKey string) (*ecdsa.PrivateKey, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(hexKey), "0x"), "0X")
	key, err := crypto.HexToECDSA(h)
	if err != nil {
		// Never include the key text in the error: it would end up in logs.
		return nil, errcode.New(errcode.BlockchainConfigInvalid, "chain private key is not a valid secp256k1 hex key")
	}
	return key, nil
}

// IntrinsicGas is the gas a plain (no contract execution) transaction carrying data costs: the base 21,000 plus the
// calldata charge, or the EIP-7623 calldata floor when that is higher (Prague and later).
func IntrinsicGas(data []byte) uint64 {
	var zero, nonZero uint64
	for _, b := range data {
		if b == 0 {
			zero++
		} else {
			nonZero++
		}
	}
	standard := 21_000 + 4*zero + 16*nonZero
	floor := 21_000 + 10*(zero+4*nonZero)
	return max(standard, floor)
}

// AddressOf returns the EIP-55 address of a secp256k1 private key written as ParsePrivateKey reads it.
func AddressOf(hexKey string) (string, error) {
	key, err := ParsePrivateKey(hexKey)
	if err != nil {
		return "", err
	}
	return crypto.PubkeyToAddress(key.PublicKey).Hex(), nil
}
