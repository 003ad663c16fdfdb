/**
 * The scan item lifecycle in the database: claim, finish (with the stored
 * analysis, in one transaction), fail. Each transition re-checks the item's
 * status under a row lock, so a duplicate delivery or a late worker whose
 * lease expired cannot finish an item twice.
 *
 * Lock order is report → run → item everywhere (imports lock the report,
 * then the queued run). Holding the report and run locks before the run and
 * report roll-ups are recounted is what keeps them right: two items of one
 * run finishing at once would otherwise each count the other as still
 * running from their own snapshot, and the later write would leave the run
 * `running` forever.
 */
import { sql, type Kysely } from 'kysely';
import type { CollectResult } from '../scanning/collectors/collector.js';
import { refreshFindings, storeActivity, storeCompany, storeEvidence, type EvidenceToStore } from './analysis-repository.js';
import { refreshReportRollup } from './rollup-repository.js';
import { refreshRun } from './scan-repository.js';
import type { Database, ItemStatus, ScanMode } from './schema.js';

export interface ClaimedItem {
  id: string;
  run_id: string;
  report_id: string;
  profile_id: string | null;
  kind: 'person' | 'company_page';
  mode: ScanMode;
  key_mode: 'test' | 'live';
}

export type ItemOutcome = 'succeeded' | 'inaccessible' | 'failed' | 'cancelled';

interface LockedItem extends ClaimedItem {
  status: ItemStatus;
  archived: boolean;
}

/** Locks the item's report, run and item rows, in that order, inside `trx`. */
async function lockItem(trx: Kysely<Database>, itemId: string): Promise<LockedItem | null> {
  const ids = await trx.selectFrom('scan_items').select(['run_id', 'report_id']).where('id', '=', itemId).executeTakeFirst();
  if (!ids) return null;
  await sql`select 1 from reports where id = ${ids.report_id} for update`.execute(trx);
  await sql`select 1 from scan_runs where id = ${ids.run_id} for update`.execute(trx);
  const item = await trx
    .selectFrom('scan_items as i')
    .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
    .innerJoin('reports as rep', 'rep.id', 'i.report_id')
    .select(['i.id', 'i.run_id', 'i.report_id', 'i.profile_id', 'i.kind', 'i.status', 'r.mode', 'r.key_mode', 'rep.archived'])
    .where('i.id', '=', itemId)
    .forUpdate('i')
    .executeTakeFirst();
  return item ?? null;
}

/** pending|running → running (attempts + 1); null when there is nothing to do. */
export async function startItem(db: Kysely<Database>, itemId: string, now: Date): Promise<ClaimedItem | null> {
  return db.transaction().execute(async (trx) => {
    const item = await lockItem(trx, itemId);
    if (!item || (item.status !== 'pending' && item.status !== 'running')) return null;
    if (item.archived) {
      await trx.updateTable('scan_items').set({ status: 'cancelled', finished_at: now, reason: 'report archived' }).where('id', '=', itemId).execute();
      await refreshRun(trx, item.run_id, now);
      await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now);
      return null;
    }
    await trx
      .updateTable('scan_items')
      .set((eb) => ({ status: 'running', attempts: eb('attempts', '+', 1), started_at: eb.fn.coalesce('started_at', eb.val(now)) }))
      .where('id', '=', itemId)
      .execute();
    const run = await refreshRun(trx, item.run_id, now);
    if (run.status === 'running') await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now);
    return { id: item.id, run_id: item.run_id, report_id: item.report_id, profile_id: item.profile_id, kind: item.kind, mode: item.mode, key_mode: item.key_mode };
  });
}

export interface AnalysisInputs {
  profileUrl: string | null;
  companyUrl: string;
  company: { name: string; domain: string | null };
}

export async function analysisInputs(db: Kysely<Database>, item: ClaimedItem): Promise<AnalysisInputs> {
  const report = await db
    .selectFrom('reports')
    .select(['company_name', 'root_domain', 'pronet_company_url'])
    .where('id', '=', item.report_id)
    .executeTakeFirstOrThrow();
  const profile = item.profile_id
    ? await db.selectFrom('report_profiles').select('pronet_url').where('id', '=', item.profile_id).executeTakeFirstOrThrow()
    : null;
  return {
    profileUrl: profile?.pronet_url ?? null,
    companyUrl: report.pronet_company_url,
    company: { name: report.company_name, domain: report.root_domain },
  };
}

type Finish =
  | { item: ClaimedItem; inputs: AnalysisInputs; outcome: 'inaccessible'; reason: string }
  | { item: ClaimedItem; inputs: AnalysisInputs; outcome: 'succeeded'; result: Extract<CollectResult, { outcome: 'ok' }>; evidence: EvidenceToStore[] };

export async function finishItem(db: Kysely<Database>, finish: Finish, now: Date): Promise<ItemOutcome | 'skipped'> {
  const { item } = finish;
  return db.transaction().execute(async (trx) => {
    const current = await lockItem(trx, item.id);
    if (!current || current.status !== 'running') return 'skipped';
    if (finish.outcome === 'succeeded') {
      const { result } = finish;
      const capturedAt = new Date(result.captured_at);
      await storeEvidence(trx, { reportId: item.report_id, profileId: item.profile_id, itemId: item.id, images: finish.evidence }, now);
      if (result.activity !== null) {
        await storeActivity(trx, { reportId: item.report_id, profileId: item.profile_id, itemId: item.id, events: result.activity, capturedAt }, now);
      }
      if (item.kind === 'company_page' && result.company) {
        await storeCompany(trx, { reportId: item.report_id, itemId: item.id, company: result.company, capturedAt }, now);
      }
      if (item.profile_id !== null) {
        await refreshFindings(
          trx,
          {
            reportId: item.report_id,
            profileId: item.profile_id,
            itemId: item.id,
            profile: item.mode === 'full_profile' ? result.profile : null,
            capturedAt,
            company: finish.inputs.company,
          },
          now,
        );
      }
      await trx
        .updateTable('scan_items')
        .set({ status: 'succeeded', warning: result.missing_sections.length > 0, reason: null, finished_at: now })
        .where('id', '=', item.id)
        .execute();
    } else {
      await trx.updateTable('scan_items').set({ status: 'inaccessible', reason: finish.reason, finished_at: now }).where('id', '=', item.id).execute();
    }
    await refreshRun(trx, item.run_id, now);
    await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now);
    return finish.outcome;
  });
}

export async function markItemFailed(db: Kysely<Database>, itemId: string, reason: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const item = await lockItem(trx, itemId);
    if (!item || (item.status !== 'running' && item.status !== 'pending')) return;
    await trx.updateTable('scan_items').set({ status: 'failed', reason, finished_at: now }).where('id', '=', itemId).execute();
    await refreshRun(trx, item.run_id, now);
    await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now);
  });
}
