/**
 * The error envelope of the API (section 7): how an ApiError (the contract's
 * error vocabulary, src/domain/errors.ts) is rendered as JSON, the
 * analysis routes' defaults for `retryable` and `next_action`, and the
 * answer while the database cannot be reached (shared with the web pages).
 */
import { ApiError, apiError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, type DatabaseAvailability } from '../runtime.js';

/** The error envelope body (section 7). */
export function errorBody(error: ApiError, requestId: string) {
  const body: { code: string; message: string; retryable?: boolean; next_action?: string; details?: ErrorDetail[] } = {
    code: error.code,
    message: error.message,
  };
  if (error.retryable !== undefined) body.retryable = error.retryable;
  if (error.nextAction !== undefined) body.next_action = error.nextAction;
  if (error.details !== undefined) body.details = error.details;
  return { error: body, request_id: requestId };
}

/**
 * Section 7.1: analysis errors also carry `retryable` and `next_action`. The
 * values of next_action are ours (the contract does not show them):
 * restart_traversal, retry_later, fix_request, check_key, check_identifiers,
 * reread_analysis, skip_record.
 */
export function withAnalysisDefaults(error: ApiError): ApiError {
  if (error.retryable !== undefined && error.nextAction !== undefined) return error;
  const defaults: Partial<Record<ErrorCode, [boolean, string]>> = {
    results_changed: [true, 'restart_traversal'],
    invalid_cursor: [false, 'restart_traversal'],
    cursor_expired: [false, 'restart_traversal'],
    rate_limited: [true, 'retry_later'],
    internal_error: [true, 'retry_later'],
    unavailable: [true, 'retry_later'],
    unauthorized: [false, 'check_key'],
    forbidden: [false, 'check_key'],
    insufficient_scope: [false, 'check_key'],
    api_access_disabled: [false, 'check_key'],
    not_found: [false, 'check_identifiers'],
    evidence_unavailable: [false, 'reread_analysis'],
    result_too_large: [false, 'skip_record'],
  };
  const [retryable, nextAction] = defaults[error.code] ?? [false, 'fix_request'];
  return new ApiError(error.code, error.message, {
    retryable: error.retryable ?? retryable,
    nextAction: error.nextAction ?? nextAction,
    details: error.details,
    headers: error.headers,
  });
}

/**
 * The database cannot be reached (a restart, a failover: store/database-availability.ts): 503
 * `unavailable` with Retry-After, the outage said once in the log rather than per request. Null for
 * anything else (a bug answers 500).
 */
export function databaseUnavailable(error: unknown, availability?: DatabaseAvailability): ApiError | null {
  if (!isDatabaseUnavailable(error)) return null;
  availability?.failed(error);
  return apiError('unavailable', undefined, {
    retryable: true,
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}
