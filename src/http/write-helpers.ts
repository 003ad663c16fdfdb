/**
 * Shared pieces of the two write endpoints: the Idempotency-Key header and
 * the 422 for an invalid body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_PATTERN } from '../domain/fingerprint.js';
import { apiError, distinctDetails, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import { detailsFromSchemaErrors } from '../domain/schema-validation.js';
import { bodySchemaErrors } from './validation.js';

export function idempotencyKey(request: FastifyRequest): string {
  const raw = request.headers['idempotency-key'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw apiError('idempotency_key_invalid');
  }
  return value;
}

export function requireJsonObject(request: FastifyRequest): void {
  if (request.body === undefined || request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
    throw apiError('invalid_request', 'The request body must be a JSON object.');
  }
}

/** Throws the endpoint's 422 when the schema or the extra checks found problems. */
export function rejectInvalidBody(
  request: FastifyRequest,
  options: { code: ErrorCode; rowsMember: string; extra?: ErrorDetail[]; retryable?: boolean; message: string },
): void {
  const schemaErrors = bodySchemaErrors(request);
  const details = distinctDetails([
    ...(schemaErrors ? detailsFromSchemaErrors(schemaErrors, { rowsMember: options.rowsMember }) : []),
    ...(options.extra ?? []),
  ]);
  if (details.length > 0) {
    throw apiError(options.code, options.message, {
      details,
      ...(options.retryable !== undefined ? { retryable: options.retryable } : {}),
    });
  }
}

export function sendWrite(reply: FastifyReply, request: FastifyRequest, result: { status: number; data: unknown; replayed: boolean }, location?: string) {
  if (result.replayed) reply.header('Idempotency-Replayed', 'true');
  if (location && result.status === 201) reply.header('Location', location);
  return reply.status(result.status).send({ data: result.data, request_id: request.id });
}
