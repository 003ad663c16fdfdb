/**
 * Keeps a local copy of a report's analysis collections (findings and
 * activity) in step with the service, following the reconciliation procedure
 * of the contract (4.13). Built on the typed client (./client.ts), whose
 * `analysis.pages` traverses at one revision and restarts on 409; this module
 * stages the pages, applies complete traversals and keeps the saved state.
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
 *     jitter, at most `maxAttempts` traversals in all (default 3); when the
 *     re-read summary shows the saved revision again, nothing is traversed.
 *  5. Any other failure (network, 5xx or 429 after the bounded per-request
 *     retries of `./transport.ts`, another error status, an inconsistent page), or
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
import { ProfileScanClient, type ClientOptions } from './client.js';
import { ConnectionError, ProfileScanError, ProtocolError, RateLimitError, ResultsChangedError } from './errors.js';
import type { ActivityEvent, AnalysisSummary, CollectionName, FindingsRecord, QueryOf, RecordOf } from './types.js';

export type { FetchLike } from './transport.js';
export type { ActivityEvent, AnalysisSummary, CollectionName, FindingsRecord } from './types.js';

export const COLLECTIONS: readonly CollectionName[] = ['profiles', 'activity'];

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

export type ProfilesQuery = QueryOf['profiles'];
export type ActivityQuery = QueryOf['activity'];

/** The client's options; `maxAttempts`, `backoffMs` and `maxBackoffMs` are the restart policy (4.13 rule 5). */
export type AnalysisClientOptions = ClientOptions;
/** Reconciliation runs on the typed client. */
export type AnalysisClient = ProfileScanClient;

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
  failure?: {
    kind: 'results_changed' | 'network' | 'http' | 'rate_limited' | 'protocol';
    message: string;
    status?: number;
    code?: string;
    request_id?: string;
  };
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

/** A client for `reconcile` (the typed client; any `ProfileScanClient` works too). */
export function createAnalysisClient(options: AnalysisClientOptions): AnalysisClient {
  return new ProfileScanClient(options);
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
    profiles: {
      revision: saved.profiles.revision,
      filter: saved.profiles.filter,
      records: new Map(saved.profiles.records.map((r) => [r.profile_id, r])),
    },
    activity: {
      revision: saved.activity.revision,
      filter: saved.activity.filter,
      records: new Map(saved.activity.records.map((r) => [r.id, r])),
    },
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
  return {
    limit: q.limit ?? 100,
    profile_id: q.profile_id,
    event_type: q.event_type,
    occurred_from: q.occurred_from,
    occurred_to: q.occurred_to,
  };
}

function failureOf(error: unknown): NonNullable<CollectionOutcome['failure']> {
  if (!(error instanceof ProfileScanError)) return { kind: 'protocol', message: error instanceof Error ? error.message : String(error) };
  const kind =
    error instanceof ResultsChangedError
      ? 'results_changed'
      : error instanceof ConnectionError
        ? 'network'
        : error instanceof RateLimitError
          ? 'rate_limited'
          : error instanceof ProtocolError
            ? 'protocol'
            : 'http';
  const message = error instanceof ResultsChangedError && error.attempts > 1 ? `collection kept changing over ${error.attempts} traversals` : error.message;
  return {
    kind,
    message,
    ...(error.status !== null ? { status: error.status } : {}),
    code: error.code,
    ...(error.request_id ? { request_id: error.request_id } : {}),
  };
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
    result.summary = await client.analysis.summary(reportId);
  } catch (error) {
    for (const collection of wanted) Object.assign(result[collection], { status: 'incomplete', failure: failureOf(error) });
    return result;
  }

  for (const collection of wanted) {
    const out = result[collection];
    const query = queryOf(collection, options);
    const filter = filterOf(query);
    const saved = state[collection] as CollectionState<{ revision: string }>;
    const upToDate = (summary: AnalysisSummary) => saved.revision === REVISION_OF[collection](summary) && saved.filter === filter;
    if (upToDate(result.summary)) continue;

    const keyOf = KEY_OF[collection] as (record: { revision: string }) => string;
    let staged = new Map<string, { revision: string }>();
    let servedAt = '';
    let caughtUp = false;
    try {
      // 4.13 rules 2-3 and 5: the client traverses at the summary's revision and restarts on 409.
      const pages = client.analysis.pages(reportId, collection, query, {
        revision: REVISION_OF[collection](result.summary),
        onAttempt: (attempt, revision) => {
          // A restart discards the staged pages.
          out.attempts = attempt;
          staged = new Map();
          servedAt = revision;
        },
        onRestart: (summary) => {
          result.summary = summary;
          caughtUp = upToDate(summary);
          return !caughtUp;
        },
      });
      for await (const page of pages) {
        out.pages++;
        for (const record of page.data as { revision: string }[]) {
          const key = record && typeof record === 'object' ? keyOf(record) : undefined;
          if (typeof key !== 'string' || typeof record.revision !== 'string') throw new ProtocolError(`${collection} record without id or revision`);
          staged.set(key, record);
        }
      }
    } catch (error) {
      // Staged pages are dropped with the traversal; the saved collection is untouched (4.13 rule 5).
      out.status = 'incomplete';
      out.failure = failureOf(error);
      continue;
    }
    if (caughtUp) continue;
    const { records, changes } = merge(saved.records, staged);
    // The one place a saved collection changes: a complete traversal, in one assignment.
    (state as unknown as Record<CollectionName, CollectionState<unknown>>)[collection] = { revision: servedAt, filter, records };
    Object.assign(out, { status: 'replaced', records: records.size, revision: servedAt, changes });
  }
  return result;
}
