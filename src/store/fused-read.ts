/**
 * Fused reads: a route's resource read that runs inside the authorization
 * statement (store/rate-limit-repository.ts), so that an admitted read needs
 * one round trip to PostgreSQL instead of two.
 *
 * What it trades. GET /reports/{id} and the analysis summary are the hot
 * reads; each is one small indexed SELECT, so a second round trip after the
 * key lookup and the rate-limit take is a large share of their latency
 * (`npm run bench` compares them with one SELECT). In exchange, the route's SQL runs in a
 * statement the authorization owns: it must be scoped by the key's workspace,
 * return at most one row, and never write. The authorization statement runs
 * it only once the key was found valid, its workspace has API access and the
 * request was counted within its limits; the handler still checks scopes.
 *
 * One path for the fast case and the fallback. A read is defined once, as
 * SQL built from references to the workspace id and to its named parameters
 * (`select`), plus a typed decoder of its one `fused` column (`decode`):
 * - fused: the authorization statement builds it with the workspace as
 *   `k.workspace_id` and the parameters numbered after its own;
 * - alone (`runFusedRead`, when the authorization statement could not run it,
 *   e.g. a path id that is not a UUID, or when a use-case reads outside a
 *   request): the same function, with the workspace as $1 and the
 *   parameters from $2.
 * Both results go through the same `decode`, and `readFused` picks between
 * them, so a handler cannot tell which path ran.
 */
import type { Db } from './database.js';
import { prepared, runPrepared, type PreparedStatement } from './prepared-statements.js';

/** SQL references the read's text is built from (placeholders or column references). */
export interface FusedReadRefs<P extends string> {
  /** The workspace id every row must be scoped by. */
  workspaceId: string;
  /** One placeholder per named parameter (e.g. `$8`). */
  param: Readonly<Record<P, string>>;
}

export interface FusedRead<P extends string, T> {
  /** Unique among fused reads; part of the prepared statements' names. */
  readonly name: string;
  /** The parameters, in the order their values are bound. */
  readonly params: readonly P[];
  /** A SELECT returning at most one row with one column `fused`, built from `refs`. */
  select(refs: FusedReadRefs<P>): string;
  /** The `fused` column's value as the read's result; `null` is "found nothing". */
  decode(value: unknown): T | null;
}

export function defineFusedRead<const P extends string, T>(read: FusedRead<P, T>): FusedRead<P, T> {
  return read;
}

/** A fused read with its arguments: what a route asks the authorization statement to run. */
export interface FusedCall {
  readonly read: FusedRead<string, unknown>;
  readonly args: Readonly<Record<string, unknown>>;
}

export function fusedCall<P extends string>(read: FusedRead<P, unknown>, args: Readonly<Record<P, unknown>>): FusedCall {
  return { read, args };
}

/** The result of a fused read that ran in the authorization statement (`value`: the raw column). */
export interface Prefetched {
  readonly read: string;
  readonly value: unknown;
}

/** `refs` with the workspace as given and the parameters numbered from `$first`. */
export function fusedRefs<P extends string>(read: FusedRead<P, unknown>, workspaceId: string, first: number): FusedReadRefs<P> {
  const param = Object.fromEntries(read.params.map((name, i) => [name, `$${first + i}`])) as Record<P, string>;
  return { workspaceId, param };
}

/** The values of `args` in the order of the read's parameters. */
export function fusedValues<P extends string>(read: FusedRead<P, unknown>, args: Readonly<Record<P, unknown>>): unknown[] {
  return read.params.map((name) => args[name]);
}

const aloneStatements = new Map<string, PreparedStatement>();

/** Runs `read` on its own: the workspace is $1, the parameters follow. */
export async function runFusedRead<P extends string, T>(
  db: Db,
  read: FusedRead<P, T>,
  workspaceId: string,
  args: Readonly<Record<P, unknown>>,
): Promise<T | null> {
  let statement = aloneStatements.get(read.name);
  if (!statement) {
    statement = prepared(`fused_alone+${read.name}`, read.select(fusedRefs(read, '$1::uuid', 2)));
    aloneStatements.set(read.name, statement);
  }
  const [row] = await runPrepared<{ fused: unknown }>(db, statement, [workspaceId, ...fusedValues(read, args)]);
  return read.decode(row?.fused ?? null);
}

/**
 * The read's result: from `prefetched` when the authorization statement ran
 * this read, otherwise by running it alone. The one entry point of handlers.
 */
export async function readFused<P extends string, T>(
  db: Db,
  read: FusedRead<P, T>,
  workspaceId: string,
  args: Readonly<Record<P, unknown>>,
  prefetched: Prefetched | undefined,
): Promise<T | null> {
  if (prefetched && prefetched.read === read.name) return read.decode(prefetched.value);
  return runFusedRead(db, read, workspaceId, args);
}
