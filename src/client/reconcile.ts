/**
 * Keeps a local copy of a report's analysis collections (findings and
 * activity) in step with the service, following the reconciliation procedure
 * of the contract (4.13). Dependency-free; usable outside this repository.
 *
 * Procedure, per call of `reconcile`:
 *  1. Read the summary (4.10) and compare `collections.profiles_revision` and
 *     `collections.activity_revision` with the saved revisions.
 *  2. For each changed collection, request the first page with
 *     `expected_revision` = the summary's revision, then follow the top-level
 *     `next_cursor` until it is null, sending the same filters, limit and
 *     expected revision on every page. Pages are staged, not applied.
 *  3. Only after a complete traversal is the saved collection replaced, in one
 *     assignment: records are upserted by id and revision (an unchanged record
 *     keeps its saved object) and records absent from the traversal are
 *     removed, within that collection and filter only.
 *  4. On 409 `results_changed` the staged pages are discarded, the summary is
 *     re-read and the traversal restarts after an exponential backoff with
 *     jitter, at most `maxAttempts` traversals in all (default 3).
 *  5. Any other failure (network, 5xx or 429 after the bounded per-request
 *     retries of `./http.ts`, another error status, an inconsistent page), or
 *     running out of attempts, leaves the saved collection exactly as it was:
 *     no deletion is inferred, the collection is reported `incomplete`, and
 *     the next call tries again.
 *
 * Guarantees: a saved collection is always one complete traversal at one
 * revision (never a mix of pages from two revisions), and its saved revision
 * is the revision that traversal was served at. Not guaranteed: profiles and
 * activity are separate traversals, so there is no snapshot across the two
 * collections (6, 4.13); polling can miss intermediate states, and revisions
 * are opaque hashes, not an event log, so nothing here is exactly-once.
 * Polling cadence (about 30 s with jitter while work is outstanding, then
 * 1-5 min) is the caller's choice.
 */
import { ApiFailure, createHttpClient, jittered, type HttpClient, type HttpOptions } from './http.js';

export { ApiFailure } from './http.js';
export type { FetchLike } from './http.js';

export type CollectionName = 'profiles' | 'activity';
export const COLLECTIONS: readonly CollectionName[] = ['profiles', 'activity'];

/** A per-person findings record (2.9), keyed by `profile_id`. Fields beyond these are kept as received. */
export interface FindingsRecord {
  profile_id: string;
  revision: string;
  [field: string]: unknown;
}

/** An activity event (2.9), keyed by `id`. Fields beyond these are kept as received. */
export interface ActivityEvent {
  id: string;
  revision: string;
  [field: string]: unknown;
}

export interface RecordOf {
  profiles: FindingsRecord;
  activity: ActivityEvent;
}

export interface CollectionState<R> {
  /** Revision the saved records were traversed at; null before the first complete traversal. */
  revision: string | null;
  /** The filters the saved records were traversed with (canonical form); a different filter forces a traversal. */
  filter: string;
  records: ReadonlyMap<string, R>;
}

export interface LocalState {
  profiles: CollectionState<FindingsRecord>;
  activity: CollectionState<ActivityEvent>;
}

export interface ProfilesQuery {
  /** 1-25 (default 25). */
  limit?: number;
  profile_id?: string;
}

export interface ActivityQuery {
  /** 1-100 (default 100). */
  limit?: number;
  profile_id?: string;
  event_type?: string;
  occurred_from?: string;
  occurred_to?: string;
}

export interface AnalysisClientOptions extends HttpOptions {
  /** Traversals per collection per `reconcile` call, the first included (default 3, 4.13 rule 5). */
  maxAttempts?: number;
  /** Backoff before the first restart after a 409; doubled for each further restart (default 1000 ms). */
  backoffMs?: number;
  /** Cap of one restart backoff (default 30 s). */
  maxBackoffMs?: number;
}

export interface AnalysisClient {
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly http: HttpClient;
  /** GET /reports/{id}/analysis, the `data` member. */
  summary(reportId: string): Promise<AnalysisSummary>;
  /** One page of a collection (the envelope without `request_id`). */
  page<C extends CollectionName>(reportId: string, collection: C, query: Record<string, string | number | undefined>): Promise<CollectionPage<RecordOf[C]>>;
}

/** The members of the summary this module relies on; the rest is passed through untyped. */
export interface AnalysisSummary {
  results_revision: string;
  collections: { profiles_revision: string; activity_revision: string };
  [field: string]: unknown;
}

export interface CollectionPage<R> {
  data: R[];
  revision: string;
  next_cursor: string | null;
}

export type CollectionStatus = 'unchanged' | 'replaced' | 'incomplete';

export interface CollectionOutcome {
  status: CollectionStatus;
  /** Traversals started in this call (0 when the first summary showed no change). */
  attempts: number;
  /** Records in the saved collection after the call. */
  records: number;
  /** Saved revision after the call. */
  revision: string | null;
  /** Pages read in this call, restarted traversals included. */
  pages: number;
  /** What a replacement changed; present when `status` is `replaced`. */
  changes?: { added: number; updated: number; removed: number };
  /** Why the collection is `incomplete`. Never contains the key. */
  failure?: { kind: 'results_changed' | 'network' | 'http' | 'rate_limited' | 'protocol'; message: string; status?: number; code?: string };
}

export interface ReconcileResult {
  profiles: CollectionOutcome;
  activity: CollectionOutcome;
  /** The last summary read in this call, or null when no summary could be read. */
  summary: AnalysisSummary | null;
  /** The state after the call (the same object that was passed in). */
  state: LocalState;
}

export interface ReconcileOptions {
  profiles?: ProfilesQuery;
  activity?: ActivityQuery;
  /** Collections to reconcile (default both). */
  collections?: readonly CollectionName[];
}

const KEY_OF: { [C in CollectionName]: (record: RecordOf[C]) => string } = {
  profiles: (record) => record.profile_id,
  activity: (record) => record.id,
};

const REVISION_OF: Record<CollectionName, (summary: AnalysisSummary) => string> = {
  profiles: (summary) => summary.collections.profiles_revision,
  activity: (summary) => summary.collections.activity_revision,
};

export function createAnalysisClient(options: AnalysisClientOptions): AnalysisClient {
  const http = createHttpClient(options);
  const base = (reportId: string) => `/reports/${encodeURIComponent(reportId)}/analysis`;
  return {
    http,
    maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    backoffMs: options.backoffMs ?? 1000,
    maxBackoffMs: options.maxBackoffMs ?? 30_000,
    async summary(reportId) {
      const body = await http.get<{ data?: AnalysisSummary }>(base(reportId));
      const data = body.data;
      if (!data || typeof data.collections?.profiles_revision !== 'string' || typeof data.collections?.activity_revision !== 'string') {
        throw new ApiFailure('protocol', 'summary without collection revisions');
      }
      return data;
    },
    async page(reportId, collection, query) {
      const body = await http.get<Partial<CollectionPage<RecordOf[typeof collection]>>>(`${base(reportId)}/${collection}`, query);
      if (!Array.isArray(body.data) || typeof body.revision !== 'string' || (body.next_cursor !== null && typeof body.next_cursor !== 'string')) {
        throw new ApiFailure('protocol', `${collection} page without data, revision or next_cursor`);
      }
      return { data: body.data, revision: body.revision, next_cursor: body.next_cursor };
    },
  };
}

export function emptyState(): LocalState {
  return {
    profiles: { revision: null, filter: '', records: new Map() },
    activity: { revision: null, filter: '', records: new Map() },
  };
}

/** Serializable form of a state (records as arrays), for saving between runs. */
export interface SerializedState {
  profiles: { revision: string | null; filter: string; records: FindingsRecord[] };
  activity: { revision: string | null; filter: string; records: ActivityEvent[] };
}

export function serializeState(state: LocalState): SerializedState {
  return {
    profiles: { revision: state.profiles.revision, filter: state.profiles.filter, records: [...state.profiles.records.values()] },
    activity: { revision: state.activity.revision, filter: state.activity.filter, records: [...state.activity.records.values()] },
  };
}

export function deserializeState(saved: SerializedState): LocalState {
  return {
    profiles: { revision: saved.profiles.revision, filter: saved.profiles.filter, records: new Map(saved.profiles.records.map((r) => [r.profile_id, r])) },
    activity: { revision: saved.activity.revision, filter: saved.activity.filter, records: new Map(saved.activity.records.map((r) => [r.id, r])) },
  };
}

/** Filters without the limit, in a fixed order: the limit changes the paging, not the set. */
function filterOf(query: Record<string, string | number | undefined>): string {
  return new URLSearchParams(
    Object.entries(query)
      .filter(([name, value]) => name !== 'limit' && value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => [name, String(value)]),
  ).toString();
}

function queryOf(collection: CollectionName, options: ReconcileOptions): Record<string, string | number | undefined> {
  if (collection === 'profiles') {
    const q = options.profiles ?? {};
    return { limit: q.limit ?? 25, profile_id: q.profile_id };
  }
  const q = options.activity ?? {};
  return { limit: q.limit ?? 100, profile_id: q.profile_id, event_type: q.event_type, occurred_from: q.occurred_from, occurred_to: q.occurred_to };
}

function failureOf(error: unknown): NonNullable<CollectionOutcome['failure']> {
  if (error instanceof ApiFailure) return { kind: error.kind, message: error.message, status: error.details.status, code: error.details.code };
  return { kind: 'protocol', message: error instanceof Error ? error.message : String(error) };
}

/** 4.13 rule 5: a 409 `results_changed` restarts the traversal. */
function isRestart(error: unknown): boolean {
  return error instanceof ApiFailure && error.details.status === 409 && error.details.code === 'results_changed';
}

/**
 * Reads every page of one collection at `revision` (4.13 rules 2-3). Throws
 * on any failure; returns the staged records only when `next_cursor` was null.
 */
async function traverse<C extends CollectionName>(
  client: AnalysisClient,
  reportId: string,
  collection: C,
  query: Record<string, string | number | undefined>,
  revision: string,
  onPage: () => void,
): Promise<Map<string, RecordOf[C]>> {
  const staged = new Map<string, RecordOf[C]>();
  const keyOf = KEY_OF[collection] as (record: RecordOf[C]) => string;
  let cursor: string | undefined;
  for (;;) {
    const page = await client.page(reportId, collection, { ...query, expected_revision: revision, cursor });
    onPage();
    // The service answers 409 when the revision moved; a page at another revision would mix snapshots.
    if (page.revision !== revision) throw new ApiFailure('protocol', `${collection} page served at another revision than expected`);
    for (const record of page.data) {
      const key = record && typeof record === 'object' ? keyOf(record) : undefined;
      if (typeof key !== 'string' || typeof record.revision !== 'string') throw new ApiFailure('protocol', `${collection} record without id or revision`);
      staged.set(key, record);
    }
    if (page.next_cursor === null) return staged;
    if (page.next_cursor === cursor) throw new ApiFailure('protocol', `${collection} traversal did not advance`);
    cursor = page.next_cursor;
  }
}

/** Upsert by id and revision; records absent from the completed traversal are removed (4.13 rule 4). */
function merge<R extends { revision: string }>(saved: ReadonlyMap<string, R>, staged: Map<string, R>) {
  const records = new Map<string, R>();
  let added = 0;
  let updated = 0;
  for (const [id, record] of staged) {
    const previous = saved.get(id);
    if (!previous) added++;
    else if (previous.revision !== record.revision) updated++;
    records.set(id, previous && previous.revision === record.revision ? previous : record);
  }
  let removed = 0;
  for (const id of saved.keys()) if (!staged.has(id)) removed++;
  return { records, changes: { added, updated, removed } };
}

/**
 * Brings `state` up to date with report `reportId` (4.13). Mutates `state`
 * only by replacing `state.profiles` / `state.activity` with a new value after
 * a complete traversal; the previous collection objects are never modified.
 */
export async function reconcile(client: AnalysisClient, reportId: string, state: LocalState, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const outcome = (collection: CollectionName): CollectionOutcome => ({
    status: 'unchanged',
    attempts: 0,
    records: state[collection].records.size,
    revision: state[collection].revision,
    pages: 0,
  });
  const result: ReconcileResult = { profiles: outcome('profiles'), activity: outcome('activity'), summary: null, state };
  const wanted = options.collections ?? COLLECTIONS;

  // 4.13 rule 1.
  try {
    result.summary = await client.summary(reportId);
  } catch (error) {
    for (const collection of wanted) Object.assign(result[collection], { status: 'incomplete', failure: failureOf(error) });
    return result;
  }

  for (const collection of wanted) {
    const out = result[collection];
    const query = queryOf(collection, options);
    const filter = filterOf(query);
    for (let attempt = 1; ; attempt++) {
      const saved = state[collection];
      const target = REVISION_OF[collection](result.summary!);
      if (saved.revision === target && saved.filter === filter) {
        out.status = 'unchanged';
        break;
      }
      out.attempts = attempt;
      try {
        const staged = await traverse(client, reportId, collection, query, target, () => out.pages++);
        const { records, changes } = merge(saved.records as ReadonlyMap<string, { revision: string }>, staged as Map<string, { revision: string }>);
        // The one place a saved collection changes: a complete traversal, in one assignment.
        (state as unknown as Record<CollectionName, CollectionState<unknown>>)[collection] = { revision: target, filter, records };
        Object.assign(out, { status: 'replaced', records: records.size, revision: target, changes });
        break;
      } catch (error) {
        const restart = isRestart(error);
        if (!restart || attempt >= client.maxAttempts) {
          // Staged pages are dropped with the traversal; the saved collection is untouched (4.13 rule 5).
          out.status = 'incomplete';
          out.failure = restart ? { kind: 'results_changed', message: `collection kept changing over ${attempt} traversals` } : failureOf(error);
          break;
        }
      }
      // 4.13 rule 5: bounded exponential backoff with jitter, then a fresh summary.
      await client.http.sleep(jittered(Math.min(client.maxBackoffMs, client.backoffMs * 2 ** (attempt - 1)), client.http.random));
      try {
        result.summary = await client.summary(reportId);
      } catch (error) {
        out.status = 'incomplete';
        out.failure = failureOf(error);
        break;
      }
    }
  }
  return result;
}
