-- The viewer role (reads reports, changes nothing; domain/permissions.ts) for
-- users and for the invitations that create them.
alter table users drop constraint users_role_check;
alter table users add constraint users_role_check check (role in ('owner', 'admin', 'member', 'viewer'));
alter table access_links drop constraint access_links_role_check;
alter table access_links add constraint access_links_role_check check (role in ('owner', 'admin', 'member', 'viewer'));

-- Private links: each opens one person's page of one report, without
-- signing in (use-cases/person-links.ts). Only the token's SHA-256 is kept.
-- A link goes with its report and its person (a person's rows name
-- (report_id, profile_id), as migration 0041's keys do); its maker is a user,
-- whom nothing deletes but their workspace (no action, as 0041).
create table person_links (
  id uuid primary key,
  token_hash bytea not null unique,
  report_id uuid not null references reports(id) on delete cascade,
  profile_id uuid not null,
  created_by uuid references users(id),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  last_opened_at timestamptz,
  check (expires_at > created_at),
  foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade
);
create index person_links_report on person_links(report_id, created_at);
create index person_links_profile on person_links(report_id, profile_id);
create index person_links_created_by on person_links(created_by) where created_by is not null;
