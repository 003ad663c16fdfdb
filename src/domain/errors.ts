/**
 * The contract's error vocabulary (section 7): its codes and the one error
 * type every layer throws (`throw apiError('report_archived', 409, …)`).
 * The HTTP layer renders an ApiError as the error envelope
 * (src/http/errors.ts); the web pages and the CLI say it in their own way;
 * anything else thrown becomes 500 internal_error without its message.
 * No I/O, nothing of ours imported.
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
  | 'scan_allowance_exceeded'
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

/** A 422's details: each (row, field, code) once, in order, at most `max` (the contract's 100). */
export function distinctDetails(details: ErrorDetail[], max = 100): ErrorDetail[] {
  const seen = new Set<string>();
  return details
    .filter((d) => {
      const id = `${d.row_number ?? ''}|${d.field}|${d.code}`;
      return seen.has(id) ? false : (seen.add(id), true);
    })
    .slice(0, max);
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
