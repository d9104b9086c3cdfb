-- The issuance log (internal/issuancelog, issue 28): per organization, an append-only RFC 6962 Merkle log of every
-- credential its live key signed, served as C2SP checkpoints and tiles under {issuer id}/log/.
--
-- issuance_logs holds one row per organization: the row lock the sequencer takes (one appender per organization at
-- a time) and the head, the latest signed checkpoint. Entries, stored hashes and checkpoints are written in the same
-- transaction as the head moves, so a crash leaves either all of a batch or none of it: no gap, no fork.
CREATE TABLE issuance_logs (
    org_id     uuid PRIMARY KEY REFERENCES organizations (id),
    tree_size  bigint      NOT NULL DEFAULT 0 CHECK (tree_size >= 0),
    root_hash  bytea,                       -- NULL while the log is empty
    checkpoint text,                        -- the signed note of tree_size (C2SP tlog-checkpoint)
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- One entry per signed credential: entry is the canonical record the leaf hashes (internal/issuancelog/entry.go).
-- credential_id is unique per log, so an entry is appended once whatever retries the step.
CREATE TABLE issuance_log_entries (
    org_id        uuid   NOT NULL REFERENCES issuance_logs (org_id),
    idx           bigint NOT NULL CHECK (idx >= 0),
    credential_id text   NOT NULL,
    entry         bytea  NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, idx),
    UNIQUE (org_id, credential_id)
);

-- The stored hashes of the tree (golang.org/x/mod/sumdb/tlog.StoredHashIndex): everything tiles and proofs read.
CREATE TABLE issuance_log_hashes (
    org_id uuid   NOT NULL REFERENCES issuance_logs (org_id),
    hidx   bigint NOT NULL CHECK (hidx >= 0),
    hash   bytea  NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (org_id, hidx)
);

-- Every signed checkpoint, one per appended batch; anchor_key names the chain anchor (chain_txs.anchor_key) whose
-- Merkle tree carries the checkpoint's root as a leaf (beside the credentials' digests), NULL when the batch was not
-- anchored (a deployment without a chain).
CREATE TABLE issuance_log_checkpoints (
    org_id     uuid   NOT NULL REFERENCES issuance_logs (org_id),
    tree_size  bigint NOT NULL CHECK (tree_size > 0),
    root_hash  bytea  NOT NULL CHECK (length(root_hash) = 32),
    note       text   NOT NULL,
    anchor_key text,
    anchor_proof jsonb,                     -- the root's Merkle inclusion proof in that anchor's tree
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, tree_size)
);
CREATE INDEX issuance_log_checkpoints_anchor_idx ON issuance_log_checkpoints (anchor_key) WHERE anchor_key IS NOT NULL;
