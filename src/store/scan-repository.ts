/**
 * Scan runs and items (decisions "Scans"): admission with coalescing, reads,
 * and the item/run status transitions the workers make.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { isTerminal, runStatus, terminalReason } from '../domain/scan-status.js';
import type { Database, ScanMode, ScanRunsTable, ScanStatus } from './schema.js';
import type { KeyMode } from '../domain/keys.js';

export type ScanRunRow = Selectable<ScanRunsTable>;

export interface AdmittedRun {
  run: ScanRunRow;
  mode: ScanMode;
  /** The joined run's status at commit (before our additions). */
  statusAtCommit: ScanStatus;
  jobsCreated: number;
  jobsCoalesced: number;
  personItems: number;
  companyPageItems: number;
}

export interface AdmissionInput {
  reportId: string;
  workspaceId: string;
  keyMode: KeyMode;
  profileIds: string[];
  /** Background work (a scheduled refresh): its own runs, served after every other item (migration 0053). */
  background?: boolean;
}

const MODES: ScanMode[] = ['full_profile', 'activity'];
/** The company page's key in the scan_items_one_per_run index. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export interface Admission {
  runs: AdmittedRun[];
  /** The new items: the caller announces them to the queue in the same transaction. */
  itemIds: string[];
}

/**
 * Admits a full_profile and an activity item for each person (the activity
 * run also covers the company page), joining the report's still-queued run
 * of each mode or creating one. Items already pending in the joined run are
 * coalesced. Items are written in the caller's transaction (a pending item
 * is a queued job: docs/scanning.md). Returns no runs when there are no people.
 */
export async function admitScans(db: Kysely<Database>, input: AdmissionInput, now: Date): Promise<Admission> {
  if (input.profileIds.length === 0) return { runs: [], itemIds: [] };
  const admitted: AdmittedRun[] = [];
  const jobIds: string[] = [];
  const people = [...new Set(input.profileIds)];
  for (const mode of MODES) {
    const joinable = await joinableRun(db, input, mode, people);
    let run = joinable?.run ?? (await createRun(db, input, mode, now));
    const statusAtCommit = run.status;
    const pendingPeople = joinable?.pendingPeople ?? new Set<string>();
    const newPeople = people.filter((id) => !pendingPeople.has(id));
    const runId = run.id;
    const item = (profileId: string | null) => ({
      id: randomUUID(),
      run_id: runId,
      report_id: input.reportId,
      profile_id: profileId,
      kind: profileId === null ? ('company_page' as const) : ('person' as const),
      status: 'pending' as const,
      created_at: now,
      ready_at: sql<Date>`now()`,
      background: input.background ?? false,
    });
    const items = newPeople.map((profileId) => item(profileId));
    const addCompany = mode === 'activity' && !(joinable?.companyPending ?? false);
    if (addCompany) items.push(item(null));
    if (items.length > 0) {
      // joinableRun saw every item of these people in this run under the run's lock, which
      // every admission takes: none of the new items can meet one already there.
      jobIds.push(...items.map((i) => i.id));
      // One statement: the items and the run's requested count.
      run = await db
        .with('inserted', (qb) => qb.insertInto('scan_items').values(items).returning('id'))
        .updateTable('scan_runs')
        .set((eb) => ({ requested: eb('requested', '+', items.length), unfinished: eb('unfinished', '+', items.length) }))
        .where('id', '=', run.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    admitted.push({
      run,
      mode,
      statusAtCommit,
      jobsCreated: items.length,
      jobsCoalesced: input.profileIds.length - newPeople.length,
      personItems: newPeople.length,
      companyPageItems: addCompany ? 1 : 0,
    });
  }
  return { runs: admitted, itemIds: jobIds };
}

interface JoinableRun {
  run: ScanRunRow;
  /** The admitted people whose item in the run is still pending (coalesced). */
  pendingPeople: Set<string>;
  companyPending: boolean;
}

/**
 * The report's run of this mode that new work may join (decisions
 * "Coalescing"), locked for the rest of the caller's transaction, or null.
 *
 * The stored status says `queued`, but it lags the items: a worker's claim and
 * transitions reach the run row only when their roll-up deltas are folded
 * after commit (rollup-repository.ts). So the decision is taken from the items
 * themselves: those of the admitted people and of the company page, read
 * through the scan_items_one_per_run index (cost independent of the run's
 * size) under the run's row lock. One of them already claimed or finished
 * means the run has begun, and it is not joined; a pending one is coalesced.
 * Claims never insert items, and every admission locks the run first, so no
 * item for these people can appear in the run before the caller commits.
 */
async function joinableRun(db: Kysely<Database>, input: AdmissionInput, mode: ScanMode, people: string[]): Promise<JoinableRun | null> {
  const run = await db
    .selectFrom('scan_runs')
    .selectAll()
    .where('report_id', '=', input.reportId)
    .where('mode', '=', mode)
    .where('key_mode', '=', input.keyMode)
    .where('status', '=', 'queued')
    .where('background', '=', input.background ?? false)
    .orderBy('created_at', 'desc')
    .limit(1)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!run) return null;
  const lookedUp = mode === 'activity' ? [...people, NIL_UUID] : people;
  const existing = await db
    .selectFrom('scan_items')
    .select(['profile_id', 'kind', 'status'])
    .where('run_id', '=', run.id)
    .where(sql<string>`coalesce(profile_id, ${sql.lit(NIL_UUID)}::uuid)`, 'in', lookedUp)
    .execute();
  if (existing.some((item) => item.status !== 'pending')) return null;
  return {
    run,
    pendingPeople: new Set(existing.filter((i) => i.kind === 'person').map((i) => i.profile_id as string)),
    companyPending: existing.some((i) => i.kind === 'company_page'),
  };
}

async function createRun(db: Kysely<Database>, input: AdmissionInput, mode: ScanMode, now: Date): Promise<ScanRunRow> {
  return db
    .insertInto('scan_runs')
    .values({
      id: randomUUID(),
      report_id: input.reportId,
      workspace_id: input.workspaceId,
      mode,
      key_mode: input.keyMode,
      status: 'queued',
      created_at: now,
      background: input.background ?? false,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findScanRun(db: Kysely<Database>, workspaceId: string, reportId: string, runId: string) {
  return db
    .selectFrom('scan_runs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('report_id', '=', reportId)
    .where('id', '=', runId)
    .executeTakeFirst();
}

/** The report's scan runs, newest first (the web's report page; the API reads one run at a time). */
export async function listReportRuns(db: Kysely<Database>, workspaceId: string, reportId: string, limit: number): Promise<ScanRunRow[]> {
  return db
    .selectFrom('scan_runs')
    .selectAll()
    .where('report_id', '=', reportId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** What one item's transition changes in its run. */
export type RunChange =
  /** An item was claimed: the run has begun (its counts do not change). */
  | { kind: 'started' }
  /** An unfinished item ended. */
  | { kind: 'finished'; status: 'succeeded' | 'failed' | 'inaccessible' | 'cancelled'; warning?: boolean };

/** What several item transitions change in one run: the sum of their RunChanges (a fold of roll-up deltas). */
export interface RunCounts {
  /** When the first of them began its item (the run has begun then), or null. */
  startedAt: Date | null;
  succeeded: number;
  failed: number;
  inaccessible: number;
  cancelled: number;
  warnings: number;
}

export function emptyRunCounts(): RunCounts {
  return { startedAt: null, succeeded: 0, failed: 0, inaccessible: 0, cancelled: 0, warnings: 0 };
}

/** Adds one transition's change, made at `at`, to `counts` (in place). */
export function addRunChange(counts: RunCounts, change: RunChange, at: Date): void {
  if (change.kind === 'started') {
    if (counts.startedAt === null || at < counts.startedAt) counts.startedAt = at;
    return;
  }
  counts[change.status] += 1;
  if (change.status === 'succeeded' && change.warning === true) counts.warnings += 1;
}

/**
 * Applies one item's transition to its run's maintained counts (O(1), under
 * the run lock the caller holds) and settles the run's status.
 */
export async function applyRunChange(db: Kysely<Database>, runId: string, change: RunChange, now: Date): Promise<ScanRunRow> {
  const counts = emptyRunCounts();
  addRunChange(counts, change, now);
  return applyRunCounts(db, runId, counts, now);
}

/**
 * Applies the summed transitions of a run's items to its maintained counts
 * and settles the run's status (`runAfter`), under the run's row lock (taken
 * here if the caller did not). `now` is when the last of them happened.
 */
export async function applyRunCounts(db: Kysely<Database>, runId: string, counts: RunCounts, now: Date): Promise<ScanRunRow> {
  const run = await db.selectFrom('scan_runs').selectAll().where('id', '=', runId).forNoKeyUpdate().executeTakeFirstOrThrow();
  return db
    .updateTable('scan_runs')
    .set(runAfter(run, counts, now))
    .where('id', '=', runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The columns of a run that its items' transitions change. */
export type RunProgress = Pick<
  ScanRunRow,
  'status' | 'unfinished' | 'completed' | 'warnings' | 'failed' | 'inaccessible' | 'cancelled' | 'started_at' | 'completed_at' | 'terminal_reason'
>;

/**
 * A run with the summed transitions of its items (`counts`) added to its
 * maintained counts, and its status settled from them (`runSettlement`):
 * the one rule of both `applyRunCounts` and the fold (rollup-repository.ts).
 */
export function runAfter(run: RunProgress, counts: RunCounts, now: Date): RunProgress {
  const finished = counts.succeeded + counts.failed + counts.inaccessible + counts.cancelled;
  const added: RunProgress = {
    ...run,
    started_at: run.started_at ?? counts.startedAt,
    unfinished: run.unfinished - finished,
    completed: run.completed + counts.succeeded,
    warnings: run.warnings + counts.warnings,
    failed: run.failed + counts.failed + counts.inaccessible,
    inaccessible: run.inaccessible + counts.inaccessible,
    cancelled: run.cancelled + counts.cancelled,
  };
  return { ...added, ...runSettlement(added, now) };
}

/**
 * Recomputes a run's counts from its items (bulk changes such as a
 * cancellation), and settles its status. The roll-up deltas of the run's
 * items not folded yet (rollup-repository.ts) keep their totals but lose
 * their run change: the recount already holds it. One statement, so the
 * recount and the deltas it clears are of the same snapshot (a worker
 * commits an item's status and its delta together).
 */
export async function refreshRun(db: Kysely<Database>, runId: string, now: Date): Promise<ScanRunRow> {
  const { rows } = await sql<ScanRunRow>`
    with counted as (
      update rollup_deltas set run_id = null, started = false, finished = null, warning = false where run_id = ${runId}
    ), c as (
      select count(*)::int as requested,
             count(*) filter (where status in ('pending', 'running'))::int as unfinished,
             count(*) filter (where status = 'succeeded')::int as completed,
             count(*) filter (where status = 'succeeded' and warning)::int as warnings,
             count(*) filter (where status in ('failed', 'inaccessible'))::int as failed,
             count(*) filter (where status = 'inaccessible')::int as inaccessible,
             count(*) filter (where status = 'cancelled')::int as cancelled
        from scan_items where run_id = ${runId}
    )
    update scan_runs r
       set requested = c.requested, unfinished = c.unfinished, completed = c.completed, warnings = c.warnings,
           failed = c.failed, inaccessible = c.inaccessible, cancelled = c.cancelled
      from c
     where r.id = ${runId}
    returning r.*`.execute(db);
  if (!rows[0]) throw new Error(`scan run ${runId} not found`);
  return settleRunStatus(db, rows[0], now);
}

/** The run's status from its counts (decisions "Run status"), and its timestamps; one more statement only when they change. */
export async function settleRunStatus(db: Kysely<Database>, run: ScanRunRow, now: Date): Promise<ScanRunRow> {
  const settled = runSettlement(run, now);
  if (settled === null) return run;
  return db.updateTable('scan_runs').set(settled).where('id', '=', run.id).returningAll().executeTakeFirstOrThrow();
}

/** What a run's status and timestamps are to be, from its counts (decisions "Run status"); null when they already are. */
export function runSettlement(
  run: Pick<ScanRunRow, 'status' | 'unfinished' | 'completed' | 'failed' | 'inaccessible' | 'cancelled' | 'started_at' | 'completed_at'>,
  now: Date,
): Pick<ScanRunRow, 'status' | 'started_at' | 'completed_at' | 'terminal_reason'> | null {
  let status = runStatus({
    pending: run.unfinished,
    running: 0,
    succeeded: run.completed,
    failed: run.failed - run.inaccessible,
    inaccessible: run.inaccessible,
    cancelled: run.cancelled,
  });
  // A started run whose claimed items went back to the queue (a retry's
  // backoff, a provider's Retry-After) stays running: it is not joinable.
  if (status === 'queued' && run.started_at !== null) status = 'running';
  const terminal = isTerminal(status);
  if (status === run.status && (!terminal || run.completed_at !== null) && (status === 'queued' || run.started_at !== null)) return null;
  return {
    status,
    started_at: status === 'queued' ? run.started_at : (run.started_at ?? now),
    completed_at: terminal ? (run.completed_at ?? now) : null,
    terminal_reason: terminalReason(status),
  };
}

/** Cancels every unfinished item of the report's runs (e.g. when it is archived). */
export async function cancelReportScans(db: Kysely<Database>, reportId: string, now: Date): Promise<number> {
  const cancelled = await db
    .updateTable('scan_items')
    .set({ status: 'cancelled', finished_at: now, reason: 'report archived', claim_id: null, lease_expires_at: null })
    .where('report_id', '=', reportId)
    .where('status', 'in', ['pending', 'running'])
    .returning('run_id')
    .execute();
  const runIds = [...new Set(cancelled.map((r) => r.run_id))];
  for (const runId of runIds) await refreshRun(db, runId, now);
  return cancelled.length;
}
