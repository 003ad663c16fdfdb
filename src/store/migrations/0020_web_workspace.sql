-- The web workspace: people who sign in, their sessions, one-time
-- links (first-owner sign-in, invitations, password resets) and the last use
-- of API keys shown in the settings.

-- A user signs in with an email and a password (argon2id PHC string). The
-- first owner and users made by `admin user create` have neither until they
-- redeem their one-time link. Emails are unique among users that are not
-- removed, across workspaces: an email names one account.
alter table users add column email text;
alter table users add column password_hash text;
alter table users add column password_changed_at timestamptz;
alter table users add column removed_at timestamptz;
create unique index users_email on users (lower(email)) where email is not null and removed_at is null;

-- Server-side sessions. The cookie carries a random token; only its SHA-256
-- is stored, so a database read does not yield usable cookies.
create table web_sessions (
  token_hash bytea primary key,
  user_id uuid not null references users(id),
  workspace_id uuid not null references workspaces(id),
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null
);
create index web_sessions_user on web_sessions(user_id);
create index web_sessions_expires on web_sessions(expires_at);

-- One-time links, copied by hand (no mail server is assumed). `sign_in`
-- links belong to an existing user (first owner, `admin user link`, a reset);
-- `invitation` links create a user with `role` when redeemed.
create table access_links (
  id uuid primary key,
  token_hash bytea not null unique,
  workspace_id uuid not null references workspaces(id),
  purpose text not null check (purpose in ('sign_in', 'invitation')),
  user_id uuid references users(id),
  role text check (role in ('owner', 'admin', 'member')),
  label text,
  created_by uuid references users(id),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  check ((purpose = 'sign_in') = (user_id is not null)),
  check ((purpose = 'invitation') = (role is not null))
);
create index access_links_workspace on access_links(workspace_id, created_at);

-- Last use of a key, recorded at most once a minute per key and process
-- (src/http/plugins/key-usage.ts), never on the request's critical path.
alter table api_keys add column last_used_at timestamptz;
