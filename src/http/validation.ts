/**
 * The body's schema errors of a request that Fastify validated
 * (`attachValidation`); the rules that turn them into the contract's 422
 * details are in domain/schema-validation.ts, shared with the web forms.
 */
import type { FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';

/** Schema errors of the body, if the route validated with `attachValidation`. */
export function bodySchemaErrors(request: FastifyRequest): ErrorObject[] | null {
  const error = request.validationError as (Error & { validation?: ErrorObject[]; validationContext?: string }) | undefined;
  if (!error) return null;
  if (error.validationContext !== 'body') throw error;
  return error.validation ?? [];
}
