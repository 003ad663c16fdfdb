-- One account (an email and a password) can belong to several workspaces,
-- with a role in each. A `users` row is now a membership: one account in one
-- workspace, with its role, its display name there and its removal; keys,
-- sessions, links and everything that names a user keep naming the
-- membership, so an API key still belongs to one workspace and one user.
--
-- accounts are never deleted while a membership names them (NO ACTION, as
-- for users in migration 0041): a membership is removed by a status, or
-- deleted with its workspace, and the account outlives both (it may belong
-- to other workspaces).
create table accounts (
  id uuid primary key,
  email text,
  password_hash text,
  password_changed_at timestamptz,
  created_at timestamptz not null
);
create unique index accounts_email on accounts (lower(email)) where email is not null;

-- An email named one account before (unique among users not removed): the
-- rows of one email become the memberships of one account, which keeps the
-- credentials of its active row (else of its latest one). A row without an
-- email (a first owner who has not signed up yet) is its own account.
insert into accounts (id, email, password_hash, password_changed_at, created_at)
select distinct on (coalesce(lower(email), id::text)) id, email, password_hash, password_changed_at, created_at
  from users
 order by coalesce(lower(email), id::text), (removed_at is null) desc, created_at desc, id;

alter table users add column account_id uuid references accounts(id);
update users u
   set account_id = a.id
  from accounts a
 where (u.email is not null and lower(a.email) = lower(u.email)) or (u.email is null and a.id = u.id);
alter table users alter column account_id set not null;

-- One active membership per account and workspace.
create unique index users_account_workspace on users (account_id, workspace_id) where removed_at is null;

drop index users_email;
alter table users drop column email;
alter table users drop column password_hash;
alter table users drop column password_changed_at;
