// Package catalog is what an organization shows the world of its badges, at the URLs its credentials name: its own
// page at its issuer id (/issuers/{orgId} asked for HTML: name, logo, website, description and the programs it made
// visible with their badges) and each badge's page at its achievement id (/achievements/{badgeId}: the badge to a
// browser, the OB 3.0 Achievement its credentials embed to a machine). Only live, published configuration shows:
// invisible programs, drafts, test-mode credentials and recipients never do. Every answer is read from Postgres
// when it is asked for (no process cache; Cache-Control: no-cache), so a program switched to invisible is gone from
// the next request.
//
// It may import db, internal/ (pagekit for the look shared with the badge page) and the standard library; api
// mounts its handlers and decides, by Accept, who gets the page.
package catalog
