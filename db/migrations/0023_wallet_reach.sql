-- Wallet offers reach the recipient, and wallet copies are anchored (README "Into the earner's wallet").

-- Whether the recipient's mail and KakaoTalk message carry a wallet offer (`badged admin org update
-- --wallet-offers`). On by default: an organization configures nothing to have its badges go to wallets, and the
-- API's offer operation is not affected by it.
ALTER TABLE organizations ADD COLUMN wallet_offers boolean NOT NULL DEFAULT true;

-- The offer the issue notification carries: at most one per assertion, so a retried notify step (or an operator's
-- resend) links the same offer instead of minting one per attempt.
ALTER TABLE credential_offers ADD COLUMN for_notification boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX credential_offers_notification_idx ON credential_offers (assertion_id) WHERE for_notification;

-- A live copy is recorded as pending for anchoring in the claim's transaction; the worker's wallet anchor sweep
-- assigns pending copies to an anchor transaction (anchor_key, the copy's Merkle proof) and sends it. The receipt
-- at /credentials/{copyId}/receipt reads the mined transaction through anchor_key, as an assertion's does.
ALTER TABLE wallet_credentials ADD COLUMN anchor_pending boolean NOT NULL DEFAULT false,
                               ADD COLUMN anchor_key text,
                               ADD COLUMN anchor_proof jsonb;
CREATE INDEX wallet_credentials_anchor_pending_idx ON wallet_credentials (created_at) WHERE anchor_pending;
CREATE INDEX wallet_credentials_anchor_key_idx ON wallet_credentials (anchor_key) WHERE anchor_key IS NOT NULL;
-- Copies claimed before this migration join the next sweep too (test-mode copies are never anchored).
UPDATE wallet_credentials w SET anchor_pending = true
FROM credential_offers o WHERE o.id = w.offer_id AND o.mode = 'live';
