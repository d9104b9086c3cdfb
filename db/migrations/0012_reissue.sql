-- Reissue: a replacement assertion names the original it replaces (reissued_from); the original, once its
-- replacement is issued and it turns REISSUED, names the replacement (replaced_by).
ALTER TABLE assertions ADD COLUMN reissued_from uuid, ADD COLUMN replaced_by uuid;
-- NOT VALID: new rows are checked at once, and the existing rows (all NULL) are not scanned under lock.
ALTER TABLE assertions ADD CONSTRAINT assertions_reissued_from_fkey FOREIGN KEY (reissued_from) REFERENCES assertions (id) NOT VALID;
ALTER TABLE assertions ADD CONSTRAINT assertions_replaced_by_fkey FOREIGN KEY (replaced_by) REFERENCES assertions (id) NOT VALID;
-- At most one replacement of an original is in flight: a second reissue under another key is refused (AST022),
-- and this index holds even if two requests raced past the check. A FAILED replacement leaves the index, so the
-- original can be reissued again.
CREATE UNIQUE INDEX assertions_pending_reissue_idx ON assertions (reissued_from) WHERE state = 'PROCESSING';
