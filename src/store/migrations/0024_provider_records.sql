-- Provider records (docs/collectors.md, "Cost control"): a data provider such
-- as Bright Data bills per record it returns.
--
-- provider_record_budget: the records reserved against the daily budget
-- (BRIGHTDATA_DAILY_RECORD_BUDGET), per UTC day and provider, shared by every
-- worker process. A call reserves what it may be billed before it is sent,
-- with one conditional upsert (so two processes can never both take the last
-- of the budget), and gives back what was not billed when its answer is in.
create table provider_record_budget (
  day date not null,
  provider text not null,
  reserved integer not null check (reserved >= 0),
  primary key (day, provider)
);

-- provider_usage: the records actually billed, per workspace, UTC day and
-- provider; recorded in the transaction that stores the item's results, so a
-- stored result is counted exactly once. Shown to owners (web settings, admin).
create table provider_usage (
  workspace_id uuid not null references workspaces(id),
  day date not null,
  provider text not null,
  records integer not null check (records >= 0),
  primary key (workspace_id, day, provider)
);
