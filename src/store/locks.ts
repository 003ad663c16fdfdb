/**
 * The one lock order of every write that changes what a report shows:
 * report → run → item → attachment (and the rows below them). Imports lock
 * the report, then the queued run they join; a roll-up under the report lock
 * (`refreshReportRollup`) locks the attachments it recomputes; the company
 * page's item locks the report, the run and the item. A person's item locks
 * only the item, then the attachment: its roll-up is a delta folded later
 * under the report lock (rollup-repository.ts). Taking them in this order
 * everywhere is what keeps concurrent writers from deadlocking and their
 * counts exact. A finishing item that records evidence takes the media
 * collections' advisory lock (shared) before all of them
 * (maintenance-repository.ts; a person's item in the InitPlan of the
 * statement that ends it); a collection takes it alone, exclusively.
 *
 * An attachment is locked by bumping its `facts_version` (migration 0035):
 * whoever holds it may change the person's facts, and a person's finishing
 * item, which reads the person before it locks them, checks the version in
 * the statement that takes the lock (queue/finish.ts, endPersonItem).
 *
 * The locks are FOR NO KEY UPDATE: no write here changes a key, and the FOR
 * KEY SHARE locks that foreign-key checks take (an item's rows referencing
 * the report while it stores them) then never conflict with them, so two
 * writers never deadlock upgrading a shared lock.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function lockReport(db: Kysely<Database>, reportId: string): Promise<void> {
  await sql`select 1 from reports where id = ${reportId} for no key update`.execute(db);
}

export async function lockRun(db: Kysely<Database>, runId: string): Promise<void> {
  await sql`select 1 from scan_runs where id = ${runId} for no key update`.execute(db);
}

/**
 * Attachments, in id order: no worker changes their contributions until the
 * transaction ends, and their versions are bumped. (A person's item locks
 * its item and its attachment in one statement: queue/finish.ts,
 * lockClaimed and endPersonItem.)
 */
export async function lockAttachments(db: Kysely<Database>, profileIds: readonly string[]): Promise<void> {
  await sql`
    update report_profiles p set facts_version = p.facts_version + 1
      from (select id from report_profiles where id = any(${profileIds}::uuid[]) order by id for no key update) l
     where p.id = l.id`.execute(db);
}

/**
 * `lockAttachments` for those of `ids` that no other transaction holds
 * (SKIP LOCKED); returns the ids it locked.
 */
export async function lockUnheldAttachments(db: Kysely<Database>, ids: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    update report_profiles p set facts_version = p.facts_version + 1
      from (select id from report_profiles where id = any(${ids}::uuid[]) order by id for no key update skip locked) l
     where p.id = l.id
    returning p.id`.execute(db);
  return rows.map((r) => r.id);
}

/** The bump of an attachment locked by a statement of the caller's (`lockClaimed`): the person's facts may change. */
export function bumpAttachment(profileId: string) {
  return sql`update report_profiles set facts_version = facts_version + 1 where id = ${profileId}::uuid`;
}
