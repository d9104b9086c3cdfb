package api

import (
	"encoding/json"
	"net/url"

	"github.com/badged/badged/internal/credential"
)

// Evidence (v3 extension): a v3 recipient may carry up to maxEvidence items of OB 3.0 evidence, signed into its
// credential (credential.Evidence) and shown on the badge page and in the PDF. v2 recipients have no such field:
// v2 refuses it as it refuses every unknown field (COM006 naming it).
const (
	maxEvidence          = 10
	maxEvidenceURL       = 2048
	maxEvidenceName      = 200
	maxEvidenceNarrative = 2000
	maxEvidenceGenre     = 100
)

// readEvidence reads recipients[i].evidence. Each item needs a url or a narrative (an item with neither states
// nothing); url is an absolute https URL (a badge page links it, and http would mix content into a page anyone
// opens); name and genre are one line, narrative may hold line breaks.
func readEvidence(r *object) []credential.Evidence {
	var out []credential.Evidence
	r.objects("evidence", 0, maxEvidence, func(_ int, e *object) {
		e.only("url", "name", "narrative", "genre")
		var ev credential.Evidence
		if u := e.text("url", textRule{nullable: true, max: maxEvidenceURL}); u.Set && !u.Null {
			p, err := url.Parse(u.Val)
			if err != nil || p.Scheme != "https" || p.Host == "" || p.User != nil {
				e.badFormat("url", "must be an absolute https URL")
			} else {
				ev.URL = p.String()
			}
		}
		if n := e.text("name", textRule{nullable: true, max: maxEvidenceName}); n.Set && !n.Null {
			ev.Name = n.Val
		}
		if n := e.text("narrative", textRule{nullable: true, max: maxEvidenceNarrative, multiline: true}); n.Set && !n.Null {
			ev.Narrative = n.Val
		}
		if g := e.text("genre", textRule{nullable: true, max: maxEvidenceGenre}); g.Set && !g.Null {
			ev.Genre = g.Val
		}
		if (!e.has("url") || e.null("url")) && (!e.has("narrative") || e.null("narrative")) {
			e.fail("url", "an evidence item needs a url or a narrative")
		}
		out = append(out, ev)
	})
	return out
}

// evidenceJSON is the stored form of a recipient's evidence (assertions.evidence); nil (NULL) for none.
func evidenceJSON(ev []credential.Evidence) json.RawMessage {
	if len(ev) == 0 {
		return nil
	}
	b, _ := json.Marshal(ev) // strings only: cannot fail
	return b
}

// storedEvidence is the evidence of a stored assertion as v3 assertion resources show it: the items as written
// (url, name, narrative, genre; absent fields left out), [] for none. The column holds only what evidenceJSON
// wrote; a row it cannot read shows none (the caller logs it) rather than failing the whole list.
func storedEvidence(raw []byte) ([]credential.Evidence, error) {
	out := []credential.Evidence{}
	if len(raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return []credential.Evidence{}, err
	}
	return out, nil
}
