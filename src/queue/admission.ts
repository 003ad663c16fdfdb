/**
 * Admission's queue writes: a run of each mode and its `pending` items for
 * the admitted people (and the company page), joining the report's
 * still-queued run when it has not begun (decisions "Coalescing"), in the
 * caller's transaction. A pending item is a queued job (docs/scanning.md).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { KeyMode } from '../domain/keys.js';
import type { ScanRunRow } from '../store/scan-repository.js';
import type { Database, ScanMode, ScanStatus } from '../store/schema.js';

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
  /** Background work (a scheduled refresh): its own runs, served after every other item. */
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
    const runCreatedAt = run.created_at;
    const item = (profileId: string | null) => ({
      id: randomUUID(),
      run_id: runId,
      // Its run's order, which the item's foreign key holds equal to the run's row.
      run_mode: mode,
      run_created_at: runCreatedAt,
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
 * after commit (fold.ts). So the decision is taken from the items
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
