-- Recipients of a large issuance (more than 10,000) are accepted as slices of their normalized JSON, one row per
-- slice of up to 500, instead of one assertion row each: writing 100,000 assertion rows with their 14 indexes
-- takes Postgres tens of seconds, too long for the POST to wait on. The batch that runs a slice's recipients
-- writes their assertions (activities.LoadBatch) and deletes the slice in the same transaction. Serial numbers
-- are reserved by the POST (first_serial is the serial of seq 0), so they do not depend on when a slice is written.
CREATE TABLE issuance_recipient_slices (
    issuance_id  uuid    NOT NULL REFERENCES issuances (id),
    from_seq     integer NOT NULL,
    to_seq       integer NOT NULL,
    first_serial bigint  NOT NULL,
    recipients   bytea   NOT NULL, -- JSON array of {name, email, phoneNumber, sourcedId, receiveType}, seq from_seq..to_seq-1
    PRIMARY KEY (issuance_id, from_seq),
    CHECK (to_seq > from_seq)
);
