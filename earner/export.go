package earner

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/web"
)

// credentialJSON is the signed credential as a download, for its earner only (the public /credentials/{id}
// answers a browser the badge page instead).
func (h *Handler) credentialJSON(w http.ResponseWriter, r *http.Request) error {
	privateHeaders(w)
	sess, ok := h.d.SignIn.Current(r)
	if !ok {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return nil
	}
	row, found, err := h.owned(r.Context(), sess, r.PathValue("assertionId"))
	if err != nil {
		return err
	}
	if !found || row.CredentialKey == nil {
		return h.notice(w, r, http.StatusNotFound, "notfound", "err_notfound", "", Prefix, "home")
	}
	return web.ServeBlob(w, r, h.d.Blob, h.d.Log, *row.CredentialKey, "application/vc+ld+json",
		`attachment; filename="badge-`+row.ID.String()+`.json"`)
}

// owned finds the credential id among the earner's own (every section, the hidden ones too).
func (h *Handler) owned(ctx context.Context, sess signin.Session, id string) (db.GetEarnerCredentialRow, bool, error) {
	uid, err := web.ParseUUID(id)
	if err != nil {
		return db.GetEarnerCredentialRow{}, false, nil
	}
	row, err := h.d.DB.GetEarnerCredential(ctx, db.GetEarnerCredentialParams{ID: uid, Email: sess.Email})
	if db.IsNotFound(err) {
		return db.GetEarnerCredentialRow{}, false, nil
	}
	return row, err == nil, err
}

// export is one zip of every credential the collection shows (both sections): each signed JSON and baked image,
// named by badge and id. It is built in memory first, so a blob that fails to read is a 500, never half a zip.
func (h *Handler) export(w http.ResponseWriter, r *http.Request) error {
	privateHeaders(w)
	sess, ok := h.d.SignIn.Current(r)
	if !ok {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return nil
	}
	active, inactive, err := h.load(r, sess.Email)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, row := range append(active, inactive...) {
		base := row.ID.String()
		if row.CredentialKey != nil {
			if err := h.addBlob(r.Context(), zw, base+".json", *row.CredentialKey); err != nil {
				return err
			}
		}
		if row.BakedKey != nil {
			ext := ".png"
			if row.BakedContentType != nil && *row.BakedContentType == "image/svg+xml" {
				ext = ".svg"
			}
			if err := h.addBlob(r.Context(), zw, base+ext, *row.BakedKey); err != nil {
				return err
			}
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="badges.zip"`)
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	_, err = w.Write(buf.Bytes())
	return err
}

func (h *Handler) addBlob(ctx context.Context, zw *zip.Writer, name, key string) error {
	rc, _, err := h.d.Blob.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("export %s: %w", path.Base(key), err)
	}
	defer rc.Close()
	f, err := zw.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, rc)
	return err
}
