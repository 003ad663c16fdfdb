/**
 * The typed client of the profile-scan API v1 (`profile-scan/client`).
 * Runtime dependency-free (global `fetch`); request and response types come
 * from the OpenAPI document (./types.ts).
 *
 * - Writes get an automatic `Idempotency-Key` (one per call, reused by every
 *   retry of that call, so a dropped connection never writes twice); pass
 *   your own to recover a call across processes.
 * - Bounded retries (./transport.ts): 429 after `Retry-After`, no response,
 *   500/502/503/504 and writes still in progress, with backoff and jitter.
 * - Lists (`reports.list`, `profiles.list`) are async iterators that follow
 *   `page.next_cursor` with the same filters and limit.
 * - Analysis collections follow the reconciliation procedure (4.13):
 *   `analysis.pages` streams the pages of one traversal at the summary's
 *   revision and restarts on 409 `results_changed` (bounded attempts,
 *   exponential backoff with jitter, a fresh summary each time), marking the
 *   first page of each restart so a consumer can drop what it staged;
 *   `analysis.traverse` stages a whole traversal and returns it with its
 *   revision; `analysis.profiles` / `analysis.activity` iterate the records
 *   of one complete traversal (never a mix of two revisions).
 * - Evidence downloads are streams, sent with the bearer header to the
 *   configured origin only.
 * - Failures are typed exceptions (./errors.ts) with `code`, `request_id`
 *   and `retryable`.
 */
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ProtocolError, ResultsChangedError, WaitTimeoutError } from './errors.js';
import { Transport, jittered, type TransportOptions } from './transport.js';
import {
  isTerminal,
  type AnalysisSummary,
  type CollectionName,
  type Context,
  type CreatedReport,
  type CreateProfile,
  type CreateReport,
  type ExistingReports,
  type ImportReceipt,
  type RefreshBody,
  type RefreshReceipt,
  type ImportValidation,
  type ListProfilesQuery,
  type ListReportsQuery,
  type Profile,
  type QueryOf,
  type RecordOf,
  type Report,
  type Scan,
  type Workspace,
} from './types.js';

export interface ClientOptions extends TransportOptions {
  /** Traversals of one analysis collection before giving up on 409 `results_changed`, the first included (default 3, 4.13 rule 5). */
  maxAttempts?: number;
  /** Backoff before the first traversal restart; doubled for each further restart, jittered (default 1000 ms). */
  backoffMs?: number;
  /** Cap of one restart backoff (default 30 s). */
  maxBackoffMs?: number;
}

export interface ListPage<T> {
  data: T[];
  next_cursor: string | null;
  request_id: string;
}

export interface CollectionPage<R> {
  data: R[];
  revision: string;
  next_cursor: string | null;
  request_id: string;
}

export interface TraversalPage<R> extends CollectionPage<R> {
  /** The traversal this page belongs to: 1, then 2, 3… after restarts. */
  attempt: number;
  /** First page of its traversal; when `attempt > 1`, drop the pages staged before it. */
  first: boolean;
}

export interface Traversal<R> {
  /** The revision every page was served at. */
  revision: string;
  records: R[];
  /** Traversals started (restarts included). */
  attempts: number;
  /** Pages read, restarted traversals included. */
  pages: number;
}

export interface TraversalOptions {
  maxAttempts?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Revision for the first traversal (default: read from a fresh summary). */
  revision?: string;
  /** Called when a traversal starts, with its attempt number and revision. */
  onAttempt?: (attempt: number, revision: string) => void;
  /** Called with the fresh summary before a restart; returning `false` ends the traversal without further pages. */
  onRestart?: (summary: AnalysisSummary) => boolean | void;
  signal?: AbortSignal;
}

export interface WriteResult<T> {
  /** 201 created / committed; 200 for `return_existing` matches and import previews. */
  status: number;
  data: T;
  /** True when the service replayed a saved result for this Idempotency-Key (`Idempotency-Replayed: true`). */
  replayed: boolean;
  request_id: string;
  /** `Location` of the created report or receipt, when sent. */
  location: string | null;
  idempotency_key: string;
}

export interface WriteOptions {
  /** Default: a new random key per call. Reuse a key only to recover that same request (same body). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** First poll interval (default 1000 ms); it grows by half each poll up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest poll interval (default 30 s). */
  maxIntervalMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  /** Called after each poll with the current state of every run. */
  onUpdate?: (scans: Scan[]) => void;
  signal?: AbortSignal;
}

export interface EvidenceDownload {
  content_type: string;
  /** Bytes, from Content-Length (null when absent). */
  content_length: number | null;
  request_id: string | null;
  /** The image bytes, a web stream; read it once (in Node: `pipeline(Readable.fromWeb(body), file)`). */
  body: WebReadableStream<Uint8Array>;
}

/** A new Idempotency-Key: `<prefix>-<uuid>` (within the contract's 1-128 `[A-Za-z0-9._:-]`). */
export function newIdempotencyKey(prefix = 'psc'): string {
  return `${prefix}-${globalThis.crypto.randomUUID()}`;
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;
const enc = encodeURIComponent;
const COLLECTION_REVISION: Record<CollectionName, (summary: AnalysisSummary) => string> = {
  profiles: (summary) => summary.collections.profiles_revision,
  activity: (summary) => summary.collections.activity_revision,
};

function envelopeData<T>(body: { data?: T }, what: string): T {
  if (!body || body.data === undefined) throw new ProtocolError(`${what}: response without data`);
  return body.data;
}

/** A list page as received, before it is checked. */
type ListBody<T> = { data?: T[]; page?: { next_cursor?: string | null }; request_id?: string };

function listPage<T>(body: ListBody<T>, what: string): ListPage<T> {
  if (!Array.isArray(body.data) || !body.page || (body.page.next_cursor !== null && typeof body.page.next_cursor !== 'string')) {
    throw new ProtocolError(`${what}: list page without data or page.next_cursor`);
  }
  return { data: body.data, next_cursor: body.page.next_cursor, request_id: body.request_id ?? '' };
}

export class ProfileScanClient {
  readonly transport: Transport;
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.backoffMs = options.backoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
  }

  /** GET /context: the key, its workspace, scopes and limits. */
  async context(signal?: AbortSignal): Promise<Context> {
    return envelopeData((await this.transport.json<{ data: Context }>({ method: 'GET', path: '/context', signal })).body, 'context');
  }

  /** GET /workspace. */
  async workspace(signal?: AbortSignal): Promise<Workspace> {
    return envelopeData((await this.transport.json<{ data: Workspace }>({ method: 'GET', path: '/workspace', signal })).body, 'workspace');
  }

  async #write<T>(
    path: string,
    body: unknown,
    options: WriteOptions & { query?: Record<string, string | boolean> },
    key: string | undefined,
  ): Promise<WriteResult<T>> {
    const res = await this.transport.json<{ data: T; request_id: string }>({
      method: 'POST',
      path,
      query: options.query,
      body,
      idempotencyKey: key,
      signal: options.signal,
    });
    return {
      status: res.status,
      data: envelopeData(res.body, path),
      replayed: res.headers.get('idempotency-replayed') === 'true',
      request_id: res.body.request_id,
      location: res.headers.get('location'),
      idempotency_key: key ?? '',
    };
  }

  #key(options: WriteOptions): string {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    if (!IDEMPOTENCY_KEY.test(key)) throw new TypeError('idempotencyKey must be 1-128 characters from letters, digits, ".", "_", ":" and "-"');
    return key;
  }

  async *#pages<T>(fetchPage: (cursor: string | undefined) => Promise<ListPage<T>>): AsyncGenerator<T, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield* page.data;
      if (page.next_cursor === null) return;
      if (page.next_cursor === cursor) throw new ProtocolError('list traversal did not advance');
      cursor = page.next_cursor;
    }
  }

  readonly reports = {
    /** One page of GET /reports. */
    page: async (query: ListReportsQuery & { cursor?: string } = {}, signal?: AbortSignal): Promise<ListPage<Report>> =>
      listPage((await this.transport.json<ListBody<Report>>({ method: 'GET', path: '/reports', query, signal })).body, 'reports'),
    /** Every report matching the filters, newest first, across pages (4.3). */
    list: (query: ListReportsQuery = {}, signal?: AbortSignal): AsyncGenerator<Report, void, undefined> =>
      this.#pages((cursor) => this.reports.page({ ...query, cursor }, signal)),
    get: async (reportId: string, signal?: AbortSignal): Promise<Report> =>
      envelopeData((await this.transport.json<{ data: Report }>({ method: 'GET', path: `/reports/${enc(reportId)}`, signal })).body, 'report'),
    /**
     * POST /reports (4.4). 201 `created`, or 200 `existing` with `on_existing: return_existing`.
     * Retries (and a later call with the same `idempotencyKey` and body) replay the saved result.
     */
    create: async (body: CreateReport, options: WriteOptions = {}): Promise<WriteResult<CreatedReport | ExistingReports>> =>
      this.#write('/reports', body, options, this.#key(options)),
  };

  readonly profiles = {
    /** One page of the roster (4.6). */
    page: async (reportId: string, query: ListProfilesQuery & { cursor?: string } = {}, signal?: AbortSignal): Promise<ListPage<Profile>> =>
      listPage((await this.transport.json<ListBody<Profile>>({ method: 'GET', path: `/reports/${enc(reportId)}/profiles`, query, signal })).body, 'profiles'),
    /** The whole active roster, newest first, across pages. */
    list: (reportId: string, query: ListProfilesQuery = {}, signal?: AbortSignal): AsyncGenerator<Profile, void, undefined> =>
      this.#pages((cursor) => this.profiles.page(reportId, { ...query, cursor }, signal)),
  };

  readonly scans = {
    get: async (reportId: string, scanRunId: string, signal?: AbortSignal): Promise<Scan> =>
      envelopeData(
        (await this.transport.json<{ data: Scan }>({ method: 'GET', path: `/reports/${enc(reportId)}/scans/${enc(scanRunId)}`, signal })).body,
        'scan',
      ),
    /**
     * Polls the runs until every one is terminal (4.7: slowing intervals; 429s wait for Retry-After).
     * Resolves the final runs; throws on timeout or abort.
     */
    wait: async (reportId: string, scanRunIds: readonly string[], options: WaitOptions = {}): Promise<Scan[]> => {
      const started = Date.now();
      let interval = options.intervalMs ?? 1000;
      const maxInterval = options.maxIntervalMs ?? 30_000;
      const latest = new Map<string, Scan>();
      for (;;) {
        for (const id of scanRunIds) {
          const known = latest.get(id);
          if (!known || !isTerminal(known)) latest.set(id, await this.scans.get(reportId, id, options.signal));
        }
        const scans = scanRunIds.map((id) => latest.get(id)!);
        options.onUpdate?.(scans);
        if (scans.every(isTerminal)) return scans;
        if (options.timeoutMs !== undefined && Date.now() - started > options.timeoutMs) {
          throw new WaitTimeoutError(`scans not terminal after ${options.timeoutMs} ms`);
        }
        options.signal?.throwIfAborted();
        await this.transport.sleep(jittered(interval, this.transport.random));
        interval = Math.min(maxInterval, Math.round(interval * 1.5));
      }
    },
  };

  /** The refresh extension (beside the contract): a report's people scanned again. */
  readonly refreshes = {
    /**
     * POST /reports/{id}/refreshes: every active person, or `profile_ids`. 201; retries (and a later call with the
     * same `idempotencyKey` and body) replay the saved result. Over the scan allowance: 409 `scan_allowance_exceeded`, nothing queued.
     */
    create: async (reportId: string, body: RefreshBody = {}, options: WriteOptions = {}): Promise<WriteResult<RefreshReceipt>> =>
      this.#write(`/reports/${enc(reportId)}/refreshes`, body, options, this.#key(options)),
  };

  readonly imports = {
    /** POST …/profile-imports?validation_only=true: a preview; changes nothing and needs no key (4.8 rule 2). */
    validate: async (reportId: string, profiles: CreateProfile[], signal?: AbortSignal): Promise<ImportValidation> => {
      const res = await this.#write<ImportValidation | ImportReceipt>(
        `/reports/${enc(reportId)}/profile-imports`,
        { profiles },
        { signal, query: { validation_only: true } },
        undefined,
      );
      if (!('validation_only' in res.data)) throw new ProtocolError('preview answered with a receipt');
      return res.data;
    },
    /** Commits an import (4.8): 201 with the receipt; retries and replays return the saved receipt. */
    commit: async (reportId: string, profiles: CreateProfile[], options: WriteOptions = {}): Promise<WriteResult<ImportReceipt>> => {
      const res = await this.#write<ImportValidation | ImportReceipt>(`/reports/${enc(reportId)}/profile-imports`, { profiles }, options, this.#key(options));
      if ('validation_only' in res.data) throw new ProtocolError('commit answered with a preview');
      return res as WriteResult<ImportReceipt>;
    },
    /** A saved receipt (4.9); 410 `GoneError` after 30 days. */
    get: async (reportId: string, importId: string, signal?: AbortSignal): Promise<ImportReceipt> =>
      envelopeData(
        (
          await this.transport.json<{ data: ImportReceipt }>({
            method: 'GET',
            path: `/reports/${enc(reportId)}/profile-imports/${enc(importId)}`,
            signal,
          })
        ).body,
        'receipt',
      ),
  };

  readonly analysis = {
    /** GET …/analysis (4.10): the stored summary and the collection revisions. */
    summary: async (reportId: string, signal?: AbortSignal): Promise<AnalysisSummary> => {
      const data = envelopeData(
        (await this.transport.json<{ data: AnalysisSummary }>({ method: 'GET', path: `/reports/${enc(reportId)}/analysis`, signal })).body,
        'summary',
      );
      if (typeof data.collections?.profiles_revision !== 'string' || typeof data.collections?.activity_revision !== 'string') {
        throw new ProtocolError('summary without collection revisions');
      }
      return data;
    },
    /** One page of a collection, as the server sent it (no restart policy). */
    page: async <C extends CollectionName>(
      reportId: string,
      collection: C,
      query: QueryOf[C] & { cursor?: string; expected_revision?: string },
      signal?: AbortSignal,
    ): Promise<CollectionPage<RecordOf[C]>> => {
      const { body } = await this.transport.json<Partial<CollectionPage<RecordOf[C]>>>({
        method: 'GET',
        path: `/reports/${enc(reportId)}/analysis/${collection}`,
        query: query,
        signal,
      });
      if (!Array.isArray(body.data) || typeof body.revision !== 'string' || (body.next_cursor !== null && typeof body.next_cursor !== 'string')) {
        throw new ProtocolError(`${collection} page without data, revision or next_cursor`);
      }
      return { data: body.data, revision: body.revision, next_cursor: body.next_cursor, request_id: body.request_id ?? '' };
    },
    /**
     * The pages of one traversal of a collection at one revision (4.13 rules 2-3, 5): same filters and
     * limit on every page, `expected_revision` from the summary, until `next_cursor` is null. On 409
     * `results_changed` it waits (exponential backoff with jitter), re-reads the summary and starts
     * again; the first page of a restart has `first: true` and `attempt > 1`. After `maxAttempts`
     * traversals it throws the `ResultsChangedError` (with `attempts`). Other failures are thrown as is.
     */
    pages: <C extends CollectionName>(
      reportId: string,
      collection: C,
      query: QueryOf[C] = {},
      options: TraversalOptions = {},
    ): AsyncGenerator<TraversalPage<RecordOf[C]>, void, undefined> => this.#traversal(reportId, collection, query, options),
    /** One complete traversal, staged: every record at one revision (restarts handled as in `pages`). */
    traverse: async <C extends CollectionName>(
      reportId: string,
      collection: C,
      query: QueryOf[C] = {},
      options: TraversalOptions = {},
    ): Promise<Traversal<RecordOf[C]>> => {
      let records: RecordOf[C][] = [];
      let revision = '';
      let attempts = 0;
      let pages = 0;
      for await (const page of this.#traversal(reportId, collection, query, options)) {
        if (page.first) records = [];
        records.push(...page.data);
        revision = page.revision;
        attempts = page.attempt;
        pages++;
      }
      return { revision, records, attempts, pages };
    },
    /** Findings records of one complete traversal (staged: nothing is yielded before the last page arrived). */
    profiles: (reportId: string, query: QueryOf['profiles'] = {}, options: TraversalOptions = {}) => this.#records(reportId, 'profiles', query, options),
    /** Activity events of one complete traversal (staged). */
    activity: (reportId: string, query: QueryOf['activity'] = {}, options: TraversalOptions = {}) => this.#records(reportId, 'activity', query, options),
  };

  readonly evidence = {
    /**
     * Downloads an evidence image (4.12) from the `url` / `preview_url` of a findings
     * `evidence.images[]` entry, as a stream. The URL must be on the configured origin:
     * the key is never sent elsewhere. 404 `not_found` / `evidence_unavailable` are `NotFoundError`s.
     */
    download: async (url: string, signal?: AbortSignal): Promise<EvidenceDownload> => {
      const res = await this.transport.raw({ method: 'GET', url, signal });
      if (!res.body) throw new ProtocolError('evidence download without a body');
      const length = res.headers.get('content-length');
      return {
        content_type: res.headers.get('content-type') ?? 'application/octet-stream',
        content_length: length === null ? null : Number(length),
        request_id: res.headers.get('x-request-id'),
        body: res.body as unknown as WebReadableStream<Uint8Array>,
      };
    },
  };

  async *#records<C extends CollectionName>(
    reportId: string,
    collection: C,
    query: QueryOf[C],
    options: TraversalOptions,
  ): AsyncGenerator<RecordOf[C], void, undefined> {
    const { records } = await this.analysis.traverse(reportId, collection, query, options);
    yield* records;
  }

  async *#traversal<C extends CollectionName>(
    reportId: string,
    collection: C,
    query: QueryOf[C],
    options: TraversalOptions,
  ): AsyncGenerator<TraversalPage<RecordOf[C]>, void, undefined> {
    const maxAttempts = Math.max(1, options.maxAttempts ?? this.maxAttempts);
    const backoffMs = options.backoffMs ?? this.backoffMs;
    const maxBackoffMs = options.maxBackoffMs ?? this.maxBackoffMs;
    let revision = options.revision ?? COLLECTION_REVISION[collection](await this.analysis.summary(reportId, options.signal));
    for (let attempt = 1; ; attempt++) {
      options.onAttempt?.(attempt, revision);
      let cursor: string | undefined;
      let first = true;
      try {
        for (;;) {
          const page = await this.analysis.page(reportId, collection, { ...query, expected_revision: revision, cursor }, options.signal);
          // The service answers 409 when the revision moved; a page at another revision would mix snapshots.
          if (page.revision !== revision) throw new ProtocolError(`${collection} page served at another revision than expected`);
          yield { ...page, attempt, first };
          first = false;
          if (page.next_cursor === null) return;
          if (page.next_cursor === cursor) throw new ProtocolError(`${collection} traversal did not advance`);
          cursor = page.next_cursor;
        }
      } catch (error) {
        if (!(error instanceof ResultsChangedError)) throw error;
        if (attempt >= maxAttempts) {
          error.attempts = attempt;
          throw error;
        }
      }
      // 4.13 rule 5: bounded exponential backoff with jitter, then a fresh summary.
      await this.transport.sleep(jittered(Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1)), this.transport.random));
      const summary = await this.analysis.summary(reportId, options.signal);
      if (options.onRestart?.(summary) === false) return;
      revision = COLLECTION_REVISION[collection](summary);
    }
  }
}

/** Same as `new ProfileScanClient(options)`. */
export function createClient(options: ClientOptions): ProfileScanClient {
  return new ProfileScanClient(options);
}
