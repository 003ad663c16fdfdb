/**
 * Typed exceptions of the client. Every failure is a `ProfileScanError`
 * carrying the contract's `code`, the `request_id` of the response (null when
 * no response arrived), `retryable` and, on analysis routes, `next_action`.
 * HTTP error envelopes (section 7) map to one class per status; failures
 * without a response are `ConnectionError`; a response that breaks the
 * contract is `ProtocolError`. Messages are the server's (which never echo
 * secrets or submitted values) or the client's own; the API key is never
 * part of an error.
 */

export interface ErrorDetail {
  row_number?: number;
  field: string;
  code: string;
}

export interface ErrorFields {
  code: string;
  status?: number | null;
  request_id?: string | null;
  retryable?: boolean;
  next_action?: string | null;
  details?: ErrorDetail[];
}

export class ProfileScanError extends Error {
  /** The contract's error code (`not_found`, `rate_limited`, …) or the client's (`connection_error`, `protocol_error`). */
  readonly code: string;
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  /** `request_id` of the error response (equals its X-Request-ID), or null. */
  readonly request_id: string | null;
  /** Whether the same request may succeed later (after backoff, or a traversal restart for `results_changed`). */
  readonly retryable: boolean;
  /** Analysis routes: what to do next (`restart_traversal`, `retry_later`, …). */
  readonly next_action: string | null;
  /** Per-row problems of a 422 (`row_number` is 1-based within the request). */
  readonly details: ErrorDetail[];

  constructor(message: string, fields: ErrorFields, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = fields.code;
    this.status = fields.status ?? null;
    this.request_id = fields.request_id ?? null;
    this.retryable = fields.retryable ?? false;
    this.next_action = fields.next_action ?? null;
    this.details = fields.details ?? [];
  }

  toJSON() {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      request_id: this.request_id,
      retryable: this.retryable,
      next_action: this.next_action,
      message: this.message,
      ...(this.details.length > 0 ? { details: this.details } : {}),
    };
  }
}

/** An error envelope returned by the API. */
export class ApiError extends ProfileScanError {}
export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
/** 409 `results_changed`: an analysis collection changed during a traversal (4.13). */
export class ResultsChangedError extends ConflictError {
  /** Traversals started before giving up, when thrown by a traversal helper. */
  attempts = 1;
}
export class GoneError extends ApiError {}
export class PayloadTooLargeError extends ApiError {}
export class UnsupportedMediaTypeError extends ApiError {}
/** 422: `import_validation_failed`, `validation_failed` (with `details`) or `result_too_large`. */
export class ValidationError extends ApiError {}
/** 429: retry after `retry_after_seconds` (the end of the UTC minute window). */
export class RateLimitError extends ApiError {
  constructor(
    message: string,
    fields: ErrorFields,
    readonly retry_after_seconds: number,
  ) {
    super(message, fields);
  }
}
export class ServerError extends ApiError {}

/** No response: connection refused or dropped, DNS failure, timeout. Retryable. */
export class ConnectionError extends ProfileScanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: 'connection_error', retryable: true }, options);
  }
}

/** A response that does not follow the contract (not JSON, missing members, a traversal that does not advance). */
export class ProtocolError extends ProfileScanError {
  constructor(message: string, fields: Partial<ErrorFields> = {}) {
    super(message, { retryable: false, ...fields, code: fields.code ?? 'protocol_error' });
  }
}

/** `scans.wait` gave up before every run was terminal (the runs go on). */
export class WaitTimeoutError extends ProfileScanError {
  constructor(message: string) {
    super(message, { code: 'wait_timeout', retryable: true });
  }
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: ValidationError,
};

/** Builds the typed exception for an error response (`body` is the parsed JSON, or null). */
export function errorFromResponse(status: number, body: unknown, headers: Headers): ApiError {
  const envelope = body && typeof body === 'object' ? (body as { error?: unknown; request_id?: unknown }) : {};
  const error = envelope.error && typeof envelope.error === 'object' ? (envelope.error as Record<string, unknown>) : {};
  const code = typeof error.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error.message === 'string' ? error.message : `HTTP ${status} without an error envelope`;
  const fields: ErrorFields = {
    code,
    status,
    request_id: typeof envelope.request_id === 'string' ? envelope.request_id : headers.get('x-request-id'),
    retryable: typeof error.retryable === 'boolean' ? error.retryable : status === 429 || status >= 500,
    next_action: typeof error.next_action === 'string' ? error.next_action : null,
    details: Array.isArray(error.details) ? (error.details as ErrorDetail[]) : [],
  };
  const text = `${status} ${code}: ${message}`;
  if (status === 429) {
    const seconds = Number(headers.get('retry-after'));
    return new RateLimitError(text, fields, Number.isFinite(seconds) && seconds >= 0 ? Math.max(1, Math.ceil(seconds)) : 1);
  }
  if (status === 409 && code === 'results_changed') return new ResultsChangedError(text, fields);
  if (status >= 500) return new ServerError(text, fields);
  const Class = BY_STATUS[status] ?? ApiError;
  return new Class(text, fields);
}
