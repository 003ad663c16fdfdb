/**
 * An idempotent write as the contract states it (4.4 rules 7-9, 4.8 rule 4):
 * the store's idempotency record (src/store/idempotency-repository.ts) with
 * its refusals said in the contract's words.
 */
import type { Transaction } from 'kysely';
import { apiError } from '../domain/errors.js';
import { IdempotencyConflict, withIdempotency, type IdempotencyScope, type WriteResult } from '../store/idempotency-repository.js';
import type { Database } from '../store/schema.js';
import type { Db } from '../store/database.js';

export async function idempotentWrite<T>(
  db: Db,
  scope: IdempotencyScope,
  now: () => Date,
  work: (trx: Transaction<Database>) => Promise<WriteResult<T>>,
): Promise<WriteResult<T> & { replayed: boolean }> {
  try {
    return await withIdempotency(db, scope, now, work);
  } catch (error) {
    if (!(error instanceof IdempotencyConflict)) throw error;
    if (error.kind === 'in_progress') {
      throw apiError(
        'idempotency_request_in_progress',
        409,
        'A request with this Idempotency-Key is still being processed; retry shortly with the same key and body.',
        {
          retryable: true,
        },
      );
    }
    throw apiError('idempotency_key_reused', 409, 'This Idempotency-Key was already used with a different request; use a new key for a new intent.', {
      retryable: false,
    });
  }
}
