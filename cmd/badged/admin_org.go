package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// orgUpdate are the flags of `admin org update`; nil fields are left as they are.
type orgUpdate struct {
	id              string
	name, url, logo *string
}

// orgProfileOut is what `admin org update` prints: the issuer profile the badge pages show.
type orgProfileOut struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	WebsiteURL  *string `json:"websiteUrl"`
	LogoMediaID *string `json:"logoMediaId"`
}

// adminUpdateOrg sets the issuer profile of an organization. The logo must be an image of the organization itself,
// so that its page serves it from this service (the page's policy loads no other host).
func adminUpdateOrg(ctx context.Context, d *db.DB, in orgUpdate) (orgProfileOut, error) {
	orgID, err := uuid.Parse(in.id)
	if err != nil {
		return orgProfileOut{}, errors.New("org update: --id must be an organization id")
	}
	p := db.UpdateOrganizationProfileParams{ID: orgID, WebsiteUrl: in.url}
	if in.name != nil {
		if strings.TrimSpace(*in.name) == "" {
			return orgProfileOut{}, errors.New("org update: --name must not be empty")
		}
		p.Name = in.name
	}
	if in.url != nil && *in.url != "" {
		u, err := url.Parse(*in.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return orgProfileOut{}, fmt.Errorf("org update: --url %q must be an absolute http or https URL", *in.url)
		}
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
	out := orgProfileOut{ID: o.ID.String(), Name: o.Name, WebsiteURL: o.WebsiteUrl}
	if o.LogoMediaID != nil {
		s := o.LogoMediaID.String()
		out.LogoMediaID = &s
	}
	return out, nil
}
