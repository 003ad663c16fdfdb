-- The viewer role (reads reports, changes nothing; domain/permissions.ts) for
-- users and for the invitations that create them.
alter table users drop constraint users_role_check;
alter table users add constraint users_role_check check (role in ('owner', 'admin', 'member', 'viewer'));
alter table access_links drop constraint access_links_role_check;
alter table access_links add constraint access_links_role_check check (role in ('owner', 'admin', 'member', 'viewer'));

-- Private links: each opens one person's page of one report, without
-- signing in (use-cases/person-links.ts). Only the token's SHA-256 is kept.
-- A link goes with its report and its person.
create table person_links (
  id uuid primary key,
  token_hash bytea not null unique,
  report_id uuid not null references reports(id) on delete cascade,
  profile_id uuid not null references report_profiles(id) on delete cascade,
  created_by uuid references users(id) on delete set null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  last_opened_at timestamptz,
  check (expires_at > created_at)
);
create index person_links_report on person_links(report_id, created_at);
create index person_links_profile on person_links(profile_id);
