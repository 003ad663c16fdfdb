/**
 * Idempotent writes (4.4 rules 7-9, 4.8 rule 4, decisions "Idempotency").
 *
 * The whole write runs in one transaction that first takes a transaction
 * advisory lock on the key: a second request with the key while the first is
 * running is refused (IdempotencyConflict 'in_progress') instead of waiting.
 * A saved success replays (same status and data); a different fingerprint is
 * refused ('key_reused'). The record is inserted in the same transaction as
 * the write, so a crash leaves neither; failures save nothing. What a refusal
 * means to a client (the contract's 409s) is the use-case's to say.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { IDEMPOTENCY_TTL_MS } from '../domain/fingerprint.js';
import type { Database } from './schema.js';
import { retryingTransaction } from './transaction.js';

export interface IdempotencyScope {
  workspaceId: string;
  operation: 'create_report' | 'import_profiles';
  scope: string;
  key: string;
  fingerprint: string;
}

/** The key is busy with another request, or was used for a different request. */
export class IdempotencyConflict extends Error {
  constructor(readonly kind: 'in_progress' | 'key_reused') {
    super(`idempotency conflict: ${kind}`);
    this.name = 'IdempotencyConflict';
  }
}

export interface WriteResult<T> {
  status: number;
  data: T;
}

export async function withIdempotency<T>(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  now: () => Date,
  work: (trx: Transaction<Database>) => Promise<WriteResult<T>>,
): Promise<WriteResult<T> & { replayed: boolean }> {
  // A deadlock with a finishing scan item is retried, not answered with a 500.
  return retryingTransaction(db, async (trx) => {
    const lockKey = `${scope.workspaceId}|${scope.operation}|${scope.scope}|${scope.key}`;
    const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as ok`.execute(trx);
    if (!rows[0].ok) throw new IdempotencyConflict('in_progress');
    const saved = await trx
      .selectFrom('idempotency_records')
      .select(['fingerprint', 'status_code', 'response', 'expires_at'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('operation', '=', scope.operation)
      .where('scope', '=', scope.scope)
      .where('key', '=', scope.key)
      .executeTakeFirst();
    const at = now();
    if (saved && saved.expires_at.getTime() > at.getTime()) {
      if (saved.fingerprint !== scope.fingerprint) throw new IdempotencyConflict('key_reused');
      return { status: saved.status_code, data: saved.response as T, replayed: true };
    }
    const result = await work(trx);
    const record = {
      fingerprint: scope.fingerprint,
      status_code: result.status,
      response: JSON.stringify(result.data),
      created_at: at,
      expires_at: new Date(at.getTime() + IDEMPOTENCY_TTL_MS),
    };
    await trx
      .insertInto('idempotency_records')
      .values({ workspace_id: scope.workspaceId, operation: scope.operation, scope: scope.scope, key: scope.key, ...record })
      .onConflict((oc) => oc.columns(['workspace_id', 'operation', 'scope', 'key']).doUpdateSet(record))
      .execute();
    await testPauseBeforeCommit();
    return { ...result, replayed: false };
  });
}

/**
 * Test-only fault hook: with PS_TEST_PAUSE_BEFORE_COMMIT_MS (honoured only
 * with PROFILE_SCAN_TEST_HOOKS=1, config.ts), a write sleeps that long inside
 * its open transaction, after all its statements ran and just before COMMIT,
 * so a crash test can kill the process at the worst moment
 * (test/http/crash-import.test.ts). `serve` sets it from its configuration;
 * 0 (always, outside tests) does nothing.
 */
let pauseBeforeCommitMs = 0;

export function setTestPauseBeforeCommit(ms: number): void {
  pauseBeforeCommitMs = ms;
}

async function testPauseBeforeCommit(): Promise<void> {
  if (pauseBeforeCommitMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseBeforeCommitMs));
}

/** Deletes the records that expired before `before` (maintenance, src/maintenance.ts); returns how many. */
export async function pruneIdempotencyRecords(db: Kysely<Database>, before: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
