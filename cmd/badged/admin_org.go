package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/safetext"
)

// orgUpdate are the flags of `admin org update`; nil fields are left as they are.
type orgUpdate struct {
	id                       string
	name, url, logo, renewal *string
	description              *string
	walletOffers             *bool
}

// orgProfileOut is what `admin org update` prints: the issuer profile the badge pages show.
type orgProfileOut struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	WebsiteURL  *string `json:"websiteUrl"`
	LogoMediaID *string `json:"logoMediaId"`
	// WalletOffers: the recipients' issue notices carry a wallet offer (live v3 credentials).
	WalletOffers bool    `json:"walletOffers"`
	RenewalURL   *string `json:"renewalUrl"` // the renewal link of expiry reminders; null: none
	// Description: the organization's own words on its public page (/issuers/{id} in a browser); null: none.
	Description *string `json:"description"`
}

// maxOrgDescriptionLen bounds an organization's description (the database checks it too).
const maxOrgDescriptionLen = 2000

// maxRenewalURLLen bounds an organization's renewal URL (the database checks it too).
const maxRenewalURLLen = 2048

// maxOrgNameLen bounds an organization's name, as the API bounds program and badge names: it is the issuer's
// name in every credential, page and mail.
const maxOrgNameLen = 200

// orgName checks an organization name given to cmd: trimmed, not empty, valid UTF-8, at most maxOrgNameLen
// characters, and a name by safetext's rule (one line, no control or bidirectional override characters), as the
// API checks every other name.
func orgName(cmd, raw string) (string, error) {
	name := strings.TrimSpace(raw)
	switch {
	case name == "":
		return "", fmt.Errorf("%s: --name must not be empty", cmd)
	case !utf8.ValidString(name) || strings.IndexByte(name, 0) >= 0:
		return "", fmt.Errorf("%s: --name must be valid UTF-8 text without NUL", cmd)
	case utf8.RuneCountInString(name) > maxOrgNameLen:
		return "", fmt.Errorf("%s: --name must be at most %d characters", cmd, maxOrgNameLen)
	}
	if p := safetext.Problem(name, safetext.Name); p != "" {
		return "", fmt.Errorf("%s: --name %s", cmd, p)
	}
	return name, nil
}

// adminUpdateOrg sets the issuer profile of an organization. The logo must be an image of the organization itself,
// so that its page serves it from this service (the page's policy loads no other host).
func adminUpdateOrg(ctx context.Context, d *db.DB, in orgUpdate) (orgProfileOut, error) {
	orgID, err := uuid.Parse(in.id)
	if err != nil {
		return orgProfileOut{}, errors.New("org update: --id must be an organization id")
	}
	p := db.UpdateOrganizationProfileParams{ID: orgID, WebsiteUrl: in.url, WalletOffers: in.walletOffers}
	if in.name != nil {
		name, err := orgName("org update", *in.name)
		if err != nil {
			return orgProfileOut{}, err
		}
		p.Name = &name
	}
	if in.url != nil && *in.url != "" {
		u, err := url.Parse(*in.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return orgProfileOut{}, fmt.Errorf("org update: --url %q must be an absolute http or https URL", *in.url)
		}
	}
	if in.renewal != nil && *in.renewal != "" {
		u, err := url.Parse(*in.renewal)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(*in.renewal) > maxRenewalURLLen {
			return orgProfileOut{}, fmt.Errorf("org update: --renewal-url %q must be an absolute https URL of at most %d characters",
				*in.renewal, maxRenewalURLLen)
		}
	}
	p.RenewalUrl = in.renewal
	if in.description != nil {
		desc := strings.TrimSpace(*in.description)
		switch {
		case !utf8.ValidString(desc) || strings.IndexByte(desc, 0) >= 0:
			return orgProfileOut{}, errors.New("org update: --description must be valid UTF-8 text without NUL")
		case utf8.RuneCountInString(desc) > maxOrgDescriptionLen:
			return orgProfileOut{}, fmt.Errorf("org update: --description must be at most %d characters", maxOrgDescriptionLen)
		}
		if pr := safetext.Problem(desc, safetext.Multiline); pr != "" {
			return orgProfileOut{}, fmt.Errorf("org update: --description %s", pr)
		}
		p.Description = &desc
	}
	if in.logo != nil {
		logo, err := uuid.Parse(*in.logo)
		if err != nil {
			return orgProfileOut{}, errors.New("org update: --logo-media must be a media id")
		}
		if _, err := d.GetMediaFile(ctx, db.GetMediaFileParams{OrgID: orgID, ID: logo}); db.IsNotFound(err) {
			return orgProfileOut{}, fmt.Errorf("org update: organization %s has no image %s", orgID, logo)
		} else if err != nil {
			return orgProfileOut{}, err
		}
		p.LogoMediaID = &logo
	}
	o, err := d.UpdateOrganizationProfile(ctx, p)
	if db.IsNotFound(err) {
		return orgProfileOut{}, fmt.Errorf("org update: no organization %s", orgID)
	}
	if err != nil {
		return orgProfileOut{}, err
	}
	out := orgProfileOut{ID: o.ID.String(), Name: o.Name, WebsiteURL: o.WebsiteUrl, RenewalURL: o.RenewalUrl, WalletOffers: o.WalletOffers,
		Description: o.Description}
	if o.LogoMediaID != nil {
		s := o.LogoMediaID.String()
		out.LogoMediaID = &s
	}
	return out, nil
}
