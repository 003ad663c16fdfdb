/**
 * The contract's error vocabulary (section 7): its codes and the one error
 * type every layer throws (`throw apiError('report_archived', { action: 'importing people' })`).
 * The HTTP layer renders an ApiError as the error envelope
 * (src/http/errors.ts); the web pages and the CLI say it in their own way;
 * anything else thrown becomes 500 internal_error without its message.
 * No I/O, nothing of ours imported.
 */

/**
 * Every error code, declared once: its HTTP status and its message template.
 * A `{name}` in a template is filled from the values a call site passes; a
 * code whose situations differ in what the reader must do (validation_failed,
 * forbidden, invalid_request, ...) takes the situation's own sentence instead,
 * its status still the table's. The contract (section 7) shows few codes;
 * the others are ours, each with one status. `link_gone` is the web's answer to
 * a private link that no longer opens; the API never sends it.
 */
export const ERRORS = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_cursor: { status: 400, message: 'The cursor is invalid, was issued for another request, or was changed; restart from the first page.' },
  cursor_expired: { status: 400, message: 'The cursor is older than 15 minutes; restart the traversal from the first page.' },
  idempotency_key_invalid: {
    status: 400,
    message: 'Header Idempotency-Key is required: 1-128 characters from letters, digits, ".", "_", ":" and "-".',
  },
  unauthorized: { status: 401, message: 'A valid API key is required: send Authorization: Bearer <key>.' },
  forbidden: { status: 403, message: 'Your role may not do this. Nothing was changed.' },
  insufficient_scope: { status: 403, message: 'This key lacks the scope(s) this request needs: {scopes}.' },
  api_access_disabled: { status: 403, message: 'API access is disabled for this workspace.' },
  not_found: { status: 404, message: 'The {what} does not exist or is not visible to this key.' },
  evidence_unavailable: { status: 404, message: 'The media of this evidence image is no longer available.' },
  method_not_allowed: { status: 405, message: 'Method {method} is not allowed here; allowed: {allowed}.' },
  report_archived: { status: 409, message: 'The report is archived; unarchive it before {action}.' },
  scan_allowance_exceeded: {
    status: 409,
    message:
      "This write would queue {scans}, but the workspace's scan allowance has {remaining} of {limit} left this month (it resets at {resets_at}). Nothing was saved.",
  },
  idempotency_key_reused: {
    status: 409,
    message: 'This Idempotency-Key was already used with a different request; use a new key for a new intent.',
  },
  idempotency_request_in_progress: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry shortly with the same key and body.',
  },
  results_changed: {
    status: 409,
    message: 'The collection changed during the traversal; discard the staged pages and restart from the first page.',
  },
  receipt_expired: { status: 410, message: 'This import receipt is older than 30 days and has expired.' },
  link_gone: { status: 410, message: 'What this link showed is no longer available. Ask the person who shared it if you still need it.' },
  payload_too_large: { status: 413, message: 'The request body exceeds 1 MiB.' },
  unsupported_media_type: { status: 415, message: 'Request bodies must be JSON (Content-Type: application/json).' },
  validation_failed: { status: 422, message: 'The request is invalid (see details). Nothing was changed.' },
  import_validation_failed: { status: 422, message: 'The import was rejected: some rows are invalid (see details). Nothing was changed.' },
  result_too_large: {
    status: 422,
    message: 'One stored analysis record exceeds the 2 MiB response bound; a smaller page limit does not help.',
  },
  rate_limited: { status: 429, message: 'Rate limit exceeded ({policy}); retry after the current minute window.' },
  internal_error: { status: 500, message: 'The server failed to handle the request; retry with bounded backoff.' },
  unavailable: { status: 503, message: 'The service cannot reach its database right now; retry with bounded backoff.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The template of `code` with each `{name}` replaced by `values[name]`; a hole without a value is a bug. */
export function errorMessage(code: ErrorCode, values: Record<string, string | number> = {}): string {
  return ERRORS[code].message.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`error ${code}: no value for {${name}}`);
    return String(values[name]);
  });
}

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
  /** The status is the code's (ERRORS); the message is the template filled or the situation's sentence. */
  constructor(code: ErrorCode, message?: string | Record<string, string | number>, options: ApiErrorOptions = {}) {
    super(typeof message === 'string' ? message : errorMessage(code, message));
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.retryable = options.retryable;
    this.nextAction = options.nextAction;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/**
 * The error of `code`: its message is the code's template filled with `values`, or, for a code
 * whose situations differ, the situation's own sentence; its status is always the code's.
 */
export function apiError(code: ErrorCode, message?: string | Record<string, string | number>, options?: ApiErrorOptions): ApiError {
  return new ApiError(code, message, options);
}

export const notFound = (what = 'resource') => apiError('not_found', { what });
