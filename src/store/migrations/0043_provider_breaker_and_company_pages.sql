-- provider_breakers: whether a provider's circuit breaker holds collection
-- paused, and why (fixed texts), written by the worker whose breaker changed
-- state; the report page and /metrics read it. A row not refreshed for a while
-- is stale (its process is gone) and read as closed.
create table provider_breakers (
  provider text primary key,
  state text not null check (state in ('closed', 'open', 'half_open')),
  reason text,
  since timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- brightdata_company_pages: the last company-page record bought per workspace
-- and page (its profile identity), reused with its capture time for
-- BRIGHTDATA_COMPANY_MAX_AGE instead of being bought again.
create table brightdata_company_pages (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  url_key text not null,
  record jsonb not null,
  captured_at timestamptz not null,
  primary key (workspace_id, url_key)
);

-- in_flight: records reserved by calls whose answer is not in yet. While some
-- are, a call that finds the budget taken waits a little (what is not billed
-- comes back) instead of until the next day.
alter table provider_record_budget add column in_flight integer not null default 0 check (in_flight >= 0);
