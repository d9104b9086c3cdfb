package activities

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
)

// chunk is what the steps read about a chunk of recipients, in one round trip.
type chunk []db.ListPipelineAssertionsRow

// loadChunk reads the assertions of ids and returns those whose last completed step is after (see chunk.at):
// the recipients a step still has to run on. An id that names no assertion fails alone (the workflow only passes
// ids it read from the database, so this would be a bug, and it must not hide the others' progress).
func (a *Activities) loadChunk(ctx context.Context, ids []uuid.UUID, after string) (chunk, failures, error) {
	rows, err := a.DB.ListPipelineAssertions(ctx, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("load assertions: %w", err)
	}
	failed := failures{}
	if len(rows) != len(ids) {
		found := make(map[uuid.UUID]bool, len(rows))
		for _, r := range rows {
			found[r.Assertion.ID] = true
		}
		for _, id := range ids {
			if !found[id] {
				failed[id] = errcode.New(errcode.InternalServerError, "assertion "+id.String()+" does not exist")
			}
		}
	}
	return chunk(rows).at(after), failed, nil
}

// at returns the rows whose last completed step is step, that is, the recipients still to run the next one.
// Rows past it completed it in an earlier attempt; rows with an outcome are finished.
func (c chunk) at(step string) chunk {
	var out chunk
	for _, r := range c {
		if r.Assertion.State == string(db.AssertionProcessing) && r.Assertion.Step == step {
			out = append(out, r)
		}
	}
	return out
}

// succeeded records in failed the rows of c whose work failed (errs[i] for c[i]) and returns the indexes of the
// others, which the step records in one statement (none: no statement).
func (c chunk) succeeded(errs []error, failed failures) []int {
	var ok []int
	for i, r := range c {
		if errs[i] != nil {
			failed[r.Assertion.ID] = errs[i]
			continue
		}
		ok = append(ok, i)
	}
	return ok
}
