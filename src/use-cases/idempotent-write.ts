/**
 * An idempotent write as the contract states it (4.4 rules 7-9, 4.8 rule 4,
 * decisions "Idempotency").
 *
 * The whole write runs in one transaction that first takes a transaction
 * advisory lock on the key: a second request with the key while the first is
 * running is refused (409 idempotency_request_in_progress) instead of
 * waiting. A saved success replays (same status and data); a different
 * fingerprint is refused (409 idempotency_key_reused). The record is saved in
 * the same transaction as the write, so a crash leaves neither; failures save
 * nothing. A deadlock with a finishing scan item is retried, not answered
 * with a 500.
 */
import type { Transaction } from 'kysely';
import { apiError } from '../domain/errors.js';
import {
  findIdempotencyRecord,
  saveIdempotencyRecord,
  tryLockIdempotencyKey,
  type IdempotencyScope,
  type WriteResult,
} from '../store/idempotency-repository.js';
import type { Database } from '../store/schema.js';
import type { Db } from '../store/database.js';
import { retryingTransaction } from '../store/transaction.js';

export async function idempotentWrite<T>(
  db: Db,
  scope: IdempotencyScope,
  now: () => Date,
  work: (trx: Transaction<Database>) => Promise<WriteResult<T>>,
): Promise<WriteResult<T> & { replayed: boolean }> {
  return retryingTransaction(db, async (trx) => {
    if (!(await tryLockIdempotencyKey(trx, scope))) {
      throw apiError('idempotency_request_in_progress', undefined, { retryable: true });
    }
    const saved = await findIdempotencyRecord(trx, scope);
    const at = now();
    if (saved && saved.expires_at.getTime() > at.getTime()) {
      if (saved.fingerprint !== scope.fingerprint) {
        throw apiError('idempotency_key_reused', undefined, {
          retryable: false,
        });
      }
      return { status: saved.status_code, data: saved.response as T, replayed: true };
    }
    const result = await work(trx);
    await saveIdempotencyRecord(trx, scope, result, at);
    await testPauseBeforeCommit();
    return { ...result, replayed: false };
  });
}

/**
 * Test-only fault hook: with PS_TEST_PAUSE_BEFORE_COMMIT_MS (honoured only
 * with PROFILE_SCAN_TEST_HOOKS=1, config.ts), a write sleeps that long inside
 * its open transaction, after all its statements ran and just before COMMIT,
 * so a crash test can kill the process at the worst moment
 * (test/api/write-survives-crash-whole-or-not-at-all.test.ts). `serve` sets it from its configuration;
 * 0 (always, outside tests) does nothing.
 */
let pauseBeforeCommitMs = 0;

export function setTestPauseBeforeCommit(ms: number): void {
  pauseBeforeCommitMs = ms;
}

async function testPauseBeforeCommit(): Promise<void> {
  if (pauseBeforeCommitMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseBeforeCommitMs));
}
