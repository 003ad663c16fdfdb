/**
 * Rate-limit counters in PostgreSQL, shared by every process on the database.
 * A request's own buckets (per key and per workspace) live in one
 * `request_counters` row per workspace, kind and minute, taken together with
 * the key lookup (`authorizeAndTake`); other buckets (submitted rows) are
 * `rate_counters` rows, taken atomically by the `rate_take` function.
 */
import { sql, type Kysely } from 'kysely';
import { hashSecret } from '../domain/keys.js';
import type { Bucket, RequestKind, TakeResult } from '../domain/rate-limits.js';
import type { Db } from './database.js';
import { fusedRefs, fusedValues, type FusedCall, type FusedRead, type Prefetched } from './fused-read.js';
import { prepared, runPrepared, type PreparedStatement } from './prepared-statements.js';
import type { Database } from './schema.js';
import type { AuthenticatedKey } from './key-repository.js';

export async function takeRate(db: Kysely<Database>, windowStart: Date, buckets: Bucket[]): Promise<TakeResult> {
  const result = await sql<{ exceeded: number; counts: number[] }>`
    select exceeded, counts from rate_take(
      ${windowStart}::timestamptz,
      ${buckets.map((b) => b.id)}::text[],
      ${buckets.map((b) => b.limit)}::integer[],
      ${buckets.map((b) => b.amount)}::integer[])`.execute(db);
  const row = result.rows[0];
  return {
    admitted: row.exceeded === 0,
    refusedBy: row.exceeded === 0 ? null : buckets[row.exceeded - 1],
    counts: row.counts,
  };
}

/** Drops the counters of windows that started before `before`. */
export async function pruneRateCounters(db: Kysely<Database>, before: Date): Promise<number> {
  const buckets = await db.deleteFrom('rate_counters').where('window_start', '<', before).executeTakeFirst();
  const requests = await sql`delete from request_counters where window_start < ${before}`.execute(db);
  return Number(buckets.numDeletedRows) + Number(requests.numAffectedRows ?? 0);
}

export interface AuthorizedTake {
  key: AuthenticatedKey;
  /**
   * null when nothing was taken (revoked key or API access off). Otherwise the
   * request's two buckets in requestBuckets order (per key, per workspace):
   * the limits the database applied, `exceeded` (0 admitted, else the 1-based
   * bucket that refused) and the counts (after the take when admitted).
   */
  take: { limits: [number, number]; exceeded: number; counts: [number, number] } | null;
  /**
   * The fused read's raw result when it ran (fused-read.ts); undefined when it
   * did not run (no fused read, nothing taken in the first statement, or the
   * request was refused).
   */
  fused?: Prefetched;
}

// $1 secret hash, $2 window start, $3 kind, $4/$5 read limits (key, workspace), $6/$7 write defaults.
// The counters are found by the key's workspace as a value ((select … from k)), so that every plan
// looks them up through the primary key, whatever the statistics were when it was planned.
// `taken`: the request counted in its connection's slot, within the slot's share of both limits
// (8 slots: migration 0011, which request_take must match). `sums`: the buckets' counts for the
// RateLimit headers, from the statement's snapshot (ours added; concurrent takes may be missing).
const AUTHORIZE_CTE = `with k as (
     select ak.id as key_id, ak.user_id, ak.workspace_id, ak.mode, to_json(ak.scopes) as scopes,
            ak.revoked_at is not null as revoked, w.api_access, w.writes_per_minute_per_key,
            w.writes_per_minute_per_workspace, w.submitted_profiles_per_minute_per_workspace,
            case when $3::text = 'read' then $4::integer else coalesce(w.writes_per_minute_per_key, $6::integer) end as key_limit,
            case when $3::text = 'read' then $5::integer else coalesce(w.writes_per_minute_per_workspace, $7::integer) end as ws_limit
       from api_keys ak join workspaces w on w.id = ak.workspace_id
      where ak.secret_hash = $1
   ), taken as (
     update request_counters c
        set total = c.total + 1,
            per_key = c.per_key || jsonb_build_object(k.key_id, coalesce((c.per_key ->> k.key_id::text)::integer, 0) + 1)
       from k
      where not k.revoked and k.api_access
        and c.workspace_id = (select k1.workspace_id from k k1) and c.kind = $3::text and c.window_start = $2::timestamptz
        and c.slot = pg_backend_pid() % 8
        and c.total < k.ws_limit / 8 and coalesce((c.per_key ->> k.key_id::text)::integer, 0) < k.key_limit / 8
      returning true as taken
   ), sums as (
     select sum(coalesce((x.per_key ->> k.key_id::text)::integer, 0))::integer + 1 as key_count,
            sum(x.total)::integer + 1 as ws_count
       from k join request_counters x
         on x.workspace_id = (select k1.workspace_id from k k1) and x.kind = $3::text and x.window_start = $2::timestamptz
   )`;

const AUTHORIZE_TAKE = prepared(
  'authorize_take_v2',
  `${AUTHORIZE_CTE} select k.*, s.key_count, s.ws_count from k left join taken t on true left join sums s on t.taken`,
);

/** AUTHORIZE_CTE's parameters, $1 to $7; a fused read's parameters are numbered after them. */
type AuthorizeValues = [
  secretHash: Buffer,
  windowStart: Date,
  kind: RequestKind,
  keyReadLimit: number,
  workspaceReadLimit: number,
  keyWriteDefault: number,
  workspaceWriteDefault: number,
];
const AUTHORIZE_PARAMS: AuthorizeValues['length'] = 7;

const fusedStatements = new Map<string, PreparedStatement>();

function authorizeStatement(read: FusedRead<string, unknown> | null): PreparedStatement {
  if (read === null) return AUTHORIZE_TAKE;
  let statement = fusedStatements.get(read.name);
  if (!statement) {
    statement = prepared(
      `authorize_take_v2+${read.name}`,
      `${AUTHORIZE_CTE}
       select k.*, s.key_count, s.ws_count, f.fused
         from k left join taken t on true left join sums s on t.taken
         left join lateral (${read.select(fusedRefs(read, 'k.workspace_id', AUTHORIZE_PARAMS + 1))}) f on t.taken`,
    );
    fusedStatements.set(read.name, statement);
  }
  return statement;
}

const REQUEST_TAKE = prepared(
  'request_take_v1',
  'select exceeded, key_count, ws_count from request_take($1::uuid, $2::text, $3::timestamptz, $4::uuid, $5::integer, $6::integer)',
);

interface AuthorizeRow extends Omit<AuthenticatedKey, 'revoked'> {
  revoked: boolean;
  key_limit: number;
  ws_limit: number;
  key_count: number | null;
  ws_count: number | null;
  fused?: unknown;
}

/**
 * Looks the key up by its secret and, when it may make requests, counts the
 * request in its connection's slot of `request_counters` (migration 0011) and
 * runs `fused` when given: one statement, one row lock, held until that
 * statement commits. When the slot had no room left under its share of a
 * limit, or the minute's rows do not exist yet, `request_take` decides
 * exactly with all slots locked, in a second round trip. Nothing is cached: a
 * revoked key is refused by the next request in every process.
 */
export async function authorizeAndTake(
  db: Db,
  input: { secret: string; windowStart: Date; kind: RequestKind; readLimits: [number, number]; writeDefaults: [number, number] },
  fused: FusedCall | null = null,
): Promise<AuthorizedTake | undefined> {
  const values: AuthorizeValues = [
    hashSecret(input.secret),
    input.windowStart,
    input.kind,
    input.readLimits[0],
    input.readLimits[1],
    input.writeDefaults[0],
    input.writeDefaults[1],
  ];
  const [row] = await runPrepared<AuthorizeRow>(
    db,
    authorizeStatement(fused?.read ?? null),
    fused ? [...values, ...fusedValues(fused.read, fused.args)] : values,
  );
  if (!row) return undefined;
  const { key_limit, ws_limit, key_count, ws_count, fused: value, ...key } = row;
  if (key.revoked || !key.api_access) return { key, take: null };
  const limits: [number, number] = [key_limit, ws_limit];
  if (key_count !== null && ws_count !== null) {
    return { key, take: { limits, exceeded: 0, counts: [key_count, ws_count] }, ...(fused ? { fused: { read: fused.read.name, value: value ?? null } } : {}) };
  }
  const [slow] = await runPrepared<{ exceeded: number; key_count: number; ws_count: number }>(db, REQUEST_TAKE, [
    key.workspace_id,
    input.kind,
    input.windowStart,
    key.key_id,
    key_limit,
    ws_limit,
  ]);
  return { key, take: { limits, exceeded: slow.exceeded, counts: [slow.key_count, slow.ws_count] } };
}
