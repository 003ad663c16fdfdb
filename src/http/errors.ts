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
