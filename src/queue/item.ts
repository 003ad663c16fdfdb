/**
 * The scan item lifecycle in the database: claim (the fair queue's SQL
 * function, store/functions/claim_scan_item.sql), begin, end (in one statement with its
 * results: a person's item, endPersonItem; the company page's,
 * endCompanyItem; scanning/finish-item.ts decides what they store), requeue
 * (retry backoff or a provider's Retry-After), fail.
 *
 * Queue times (`ready_at`, leases) are the database server's clock: one
 * clock for every process, whatever the service clock (CLOCK_OFFSET_MS, a
 * test's manual clock) says.
 *
 * Every transition after the claim names the claim (`claim_id`) it belongs
 * to and re-checks it under a row lock, so a duplicate or a late worker whose
 * lease expired (and whose item was claimed again elsewhere) changes nothing.
 * An item begins without a lock (beginItem): its begin writes only a
 * request to recompute the person or the company page, which is harmless
 * when repeated or late.
 *
 * Lock order (src/store/locks.ts): a person's item locks the item, then the
 * attachment, and nothing above them: its roll-up is recorded as a delta
 * (queue/deltas.ts, recordPersonDelta) and folded into the report and
 * run rows after the commit (settleRollups), so the items of one report
 * never wait on each other for those rows. The company page's item (one per
 * run) ends under the report lock (the version of the company page's
 * observation is on the report row) and records its roll-up as a delta too;
 * its requeue and failure lock report → run → item and roll up under the
 * report lock.
 */
import { sql, type Kysely, type QueryCreator, type RawBuilder } from 'kysely';
import type { Database, ItemStatus, ScanMode } from '../store/schema.js';
import type { KeyMode } from '../domain/keys.js';
import { settleRollups } from './settle.js';

/** What a worker holds after a claim. */
export interface Claim {
  itemId: string;
  claimId: string;
  /** Attempts including this one. */
  attempts: number;
  /** The item begun by the claim's own statement (`claimItem` with `begin`); absent: `beginItem` begins it. */
  begun?: BegunItem;
}

export interface ClaimedItem {
  id: string;
  claim_id: string;
  run_id: string;
  report_id: string;
  /** The report's workspace (the item's fair share of image work: image-work.ts). */
  workspace_id: string;
  profile_id: string | null;
  kind: 'person' | 'company_page';
  mode: ScanMode;
  key_mode: KeyMode;
}

export type ItemOutcome = 'succeeded' | 'inaccessible' | 'failed' | 'cancelled';

/** A claimed item and what its collection and analysis need, read by the claim's begin. */
export interface BegunItem extends ClaimedItem {
  inputs: AnalysisInputs;
  /** The media collection generation, read before any evidence blob is stored (maintenance-repository.ts). */
  mediaGeneration: number;
}

export interface LockedItem extends Omit<ClaimedItem, 'claim_id'> {
  status: ItemStatus;
  claim_id: string | null;
  archived: boolean;
  company_name: string;
  root_domain: string | null;
  pronet_company_url: string;
  pronet_url: string | null;
}

/** An item as `itemRead` reads it: the media collection generation as of the read's snapshot (the begin's: before any blob is stored). */
export type ReadItem = LockedItem & { media_generation: number };

/** An item with what its transitions and its collection need (its run, report and attachment). */
export function itemRead(db: QueryCreator<Database>, itemId: string | RawBuilder<string>) {
  return db
    .selectFrom('scan_items as i')
    .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
    .innerJoin('reports as rep', 'rep.id', 'i.report_id')
    .leftJoin('report_profiles as p', 'p.id', 'i.profile_id')
    .select(['i.id', 'i.claim_id', 'i.run_id', 'i.report_id', 'i.profile_id', 'i.kind', 'i.status', 'r.mode', 'r.key_mode', 'rep.archived'])
    .select(['rep.workspace_id', 'rep.company_name', 'rep.root_domain', 'rep.pronet_company_url', 'p.pronet_url'])
    .select(sql<number>`coalesce((select media_gc_generation from maintenance_state), 0)`.as('media_generation'))
    .where('i.id', '=', itemId);
}

/**
 * Asks for the report's roll-up deltas to be folded after a transition
 * committed one (queue/settle.ts), without waiting for it: the item's slot
 * is free at once.
 * A fold that fails leaves the deltas for the workers' sweep
 * (settleStaleRollups), which reports its errors; the transition itself
 * stands.
 */
export function settle(db: Kysely<Database>, reportId: string, now: Date): void {
  settleRollups(db, reportId, now).catch(() => undefined);
}

/** What a begun item hands to its collection and its finish. */
export function begunItem(item: Omit<ReadItem, 'status' | 'claim_id'>, claim: Claim): BegunItem {
  return {
    id: item.id,
    claim_id: claim.claimId,
    run_id: item.run_id,
    report_id: item.report_id,
    workspace_id: item.workspace_id,
    profile_id: item.profile_id,
    kind: item.kind,
    mode: item.mode,
    key_mode: item.key_mode,
    inputs: {
      profileUrl: item.pronet_url,
      companyUrl: item.pronet_company_url,
      company: { name: item.company_name, domain: item.root_domain },
    },
    mediaGeneration: item.media_generation,
  };
}

export interface AnalysisInputs {
  profileUrl: string | null;
  companyUrl: string;
  company: { name: string; domain: string | null };
}
