/**
 * The shape of a module's sample calls (scripts/gen-sql.ts): each of the
 * module's operations called once with fixed arguments, against the
 * capturing instance of scripts/sql-capture.ts. Fixed ids and dates only:
 * the snapshot must come out the same on every run.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import type { CannedRows } from '../sql-capture.js';

export interface Operation {
  /** The call, with fixed sample arguments. */
  readonly run: (db: Kysely<Database>) => Promise<unknown>;
  /** Rows for the statements whose answer decides what the operation runs next (e.g. a claim that returns an item). */
  readonly rows?: CannedRows;
}

export interface ModuleSamples {
  /** The module under src/, without its extension: `queue/claim`, `store/report-repository`. */
  readonly module: string;
  /** Keyed by the exported function's name; `name (case)` for a second call of the same function. */
  readonly operations: Readonly<Record<string, Operation>>;
}

export const NOW = new Date('2026-01-02T03:04:05.000Z');
export const LATER = new Date('2026-01-02T04:04:05.000Z');
export const WORKSPACE_ID = '00000000-0000-4000-8000-000000000001';
export const REPORT_ID = '00000000-0000-4000-8000-000000000002';
export const PROFILE_ID = '00000000-0000-4000-8000-000000000003';
export const RUN_ID = '00000000-0000-4000-8000-000000000004';
export const ITEM_ID = '00000000-0000-4000-8000-000000000005';
export const CLAIM_ID = '00000000-0000-4000-8000-000000000006';
export const USER_ID = '00000000-0000-4000-8000-000000000007';
export const ACCOUNT_ID = '00000000-0000-4000-8000-000000000008';
export const KEY_ID = '00000000-0000-4000-8000-000000000009';
export const LINK_ID = '00000000-0000-4000-8000-00000000000a';
export const IMPORT_ID = '00000000-0000-4000-8000-00000000000b';
export const WORKER_ID = 'worker-sample';

/** The company page's facts when nothing of it is stored yet (store/person-facts.ts, companyFacts). */
export const NO_COMPANY_FACTS = { facts: { item: null, observed: false, events: null } };

/** Answers each statement with the rows paired with the first of the fragments its text contains (none: no rows). */
export function answer(...pairs: Array<[fragment: string, rows: readonly object[]]>): CannedRows {
  return (sql) => pairs.find(([fragment]) => sql.includes(fragment))?.[1];
}
