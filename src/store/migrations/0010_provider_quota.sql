-- Provider quotas shared by every worker process (docs/collectors.md,
-- "Provider quotas"). `provider` is the collector's endpoint URL.
--
-- Concurrency: a fixed set of slot rows per provider (slot 0 .. max-1). A call
-- leases a free slot: `holder` is its random token and `expires_at` the end of
-- the lease (start of the call + its timeout + a margin). No row lock is held
-- during the call; a slot whose holder died (SIGKILL) frees itself once its
-- lease has expired.
create table provider_call_slots (
  provider text not null,
  slot integer not null check (slot >= 0),
  holder uuid,
  expires_at timestamptz,
  primary key (provider, slot)
);

-- Rate: the earliest instant the next call may start. Each call reserves the
-- next start (max(next_start_at, now)) and pushes it by 1 / calls-per-second,
-- so starts are evenly spaced whatever the number of processes.
create table provider_call_schedule (
  provider text primary key,
  next_start_at timestamptz not null
);
