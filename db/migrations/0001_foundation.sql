-- Organizations, API keys, media files, programs and badges: everything the resource API needs.
-- Every table of organization data carries org_id, and every query of it filters by org_id.

CREATE TABLE organizations (
    id         uuid PRIMARY KEY,
    name       text        NOT NULL CHECK (name <> ''),
    credits    bigint      NOT NULL DEFAULT 0 CHECK (credits >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- A key is "bdg_<mode>_<id without dashes>_<secret>"; only the SHA-256 of the whole key is stored.
CREATE TABLE api_keys (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES organizations (id),
    key_hash   bytea       NOT NULL,
    role       text        NOT NULL CHECK (role IN ('ORG_VIEWER', 'ORG_MANAGER', 'ORG_OWNER')),
    mode       text        NOT NULL CHECK (mode IN ('live', 'test')),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id);

CREATE TABLE media_files (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES organizations (id),
    content_type text        NOT NULL,
    ext          text        NOT NULL,
    width        integer     NOT NULL,
    height       integer     NOT NULL,
    size_bytes   bigint      NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_files_org_idx ON media_files (org_id, id);

CREATE TABLE programs (
    id                 uuid PRIMARY KEY,
    org_id             uuid        NOT NULL REFERENCES organizations (id),
    name               text        NOT NULL,
    description        text,
    url                text,
    category_code      text        NOT NULL,
    starts_at          timestamptz,
    ends_at            timestamptz,
    publish_status     text        NOT NULL DEFAULT 'PUBLISHED' CHECK (publish_status IN ('DRAFTED', 'PUBLISHED')),
    visible_on_org_page boolean    NOT NULL DEFAULT false,
    image_id           uuid        NOT NULL REFERENCES media_files (id),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    deleted_at         timestamptz
);
-- The list's default sort is (created_at desc, id desc) among live rows of one org.
CREATE INDEX programs_org_list_idx ON programs (org_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- expiration_kind NULL means no expiry; RELATIVE uses expiration_months, FIXED uses expiration_fixed_at.
CREATE TABLE badges (
    id                  uuid PRIMARY KEY,
    org_id              uuid        NOT NULL REFERENCES organizations (id),
    name                text        NOT NULL,
    description         text        NOT NULL,
    criteria            jsonb       NOT NULL,
    category_code       text        NOT NULL,
    publish_status      text        NOT NULL DEFAULT 'PUBLISHED' CHECK (publish_status IN ('DRAFTED', 'PUBLISHED')),
    expiration_kind     text CHECK (expiration_kind IN ('RELATIVE', 'FIXED')),
    expiration_months   integer,
    expiration_fixed_at timestamptz,
    image_id            uuid        NOT NULL REFERENCES media_files (id),
    signature_image_id  uuid REFERENCES media_files (id),
    skills              jsonb       NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    deleted_at          timestamptz,
    CHECK ((expiration_kind IS NULL AND expiration_months IS NULL AND expiration_fixed_at IS NULL)
        OR (expiration_kind = 'RELATIVE' AND expiration_months IS NOT NULL AND expiration_fixed_at IS NULL)
        OR (expiration_kind = 'FIXED' AND expiration_months IS NULL AND expiration_fixed_at IS NOT NULL))
);
CREATE INDEX badges_org_list_idx ON badges (org_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- The one source of the program <-> badge links: a program's badgeIds and a badge's programIds both read it.
CREATE TABLE program_badges (
    org_id     uuid        NOT NULL REFERENCES organizations (id),
    program_id uuid        NOT NULL REFERENCES programs (id),
    badge_id   uuid        NOT NULL REFERENCES badges (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (program_id, badge_id)
);
CREATE INDEX program_badges_badge_idx ON program_badges (badge_id, program_id);
