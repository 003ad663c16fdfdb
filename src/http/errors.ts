/**
 * The one error type of the API and its codes. Anything thrown as ApiError is
 * rendered as the contract's error envelope (section 7) by the server's error
 * handler; anything else becomes 500 internal_error without its message.
 */

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_cursor'
  | 'cursor_expired'
  | 'idempotency_key_invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'insufficient_scope'
  | 'api_access_disabled'
  | 'not_found'
  | 'evidence_unavailable'
  | 'method_not_allowed'
  | 'report_archived'
  | 'idempotency_key_reused'
  | 'idempotency_request_in_progress'
  | 'results_changed'
  | 'receipt_expired'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'import_validation_failed'
  | 'result_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

export interface ErrorDetail {
  row_number?: number;
  field: string;
  code: string;
}

export interface ApiErrorOptions {
  retryable?: boolean;
  nextAction?: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable?: boolean;
  readonly nextAction?: string;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
  constructor(code: ErrorCode, status: number, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.retryable = options.retryable;
    this.nextAction = options.nextAction;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export function apiError(code: ErrorCode, status: number, message: string, options?: ApiErrorOptions): ApiError {
  return new ApiError(code, status, message, options);
}

export const notFound = (what = 'resource') => apiError('not_found', 404, `The ${what} does not exist or is not visible to this key.`);

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
  return new ApiError(error.code, error.status, error.message, {
    retryable: error.retryable ?? retryable,
    nextAction: error.nextAction ?? nextAction,
    details: error.details,
    headers: error.headers,
  });
}
