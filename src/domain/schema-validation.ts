/**
 * Validation of request bodies and parameters against the resource schemas
 * (domain/schemas/): the Ajv instances (one setup, shared by the API and the
 * web forms), and the contract's 422 `details` (section 2.8,
 * ImportValidationError) from their errors: row number, field and a code,
 * never the submitted value.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { distinctDetails, type ErrorDetail } from './errors.js';

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/**
 * An Ajv for one part of a request, with the formats (uuid, date-time, uri,
 * int32, …). Bodies: every error reported (422 details name them all), no
 * coercion, no defaults. Parameters and query strings: the first error, with
 * coercion from text and the schemas' defaults.
 */
export function makeAjv(part: 'body' | 'parameters'): Ajv {
  const options = part === 'body' ? { allErrors: true, coerceTypes: false, useDefaults: false } : { allErrors: false, coerceTypes: true, useDefaults: true };
  const ajv = new Ajv({ strict: false, removeAdditional: false, ...options });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

const CODES: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  maxLength: 'too_long',
  minLength: 'too_short',
  maxItems: 'too_many',
  minItems: 'too_few',
  enum: 'invalid_value',
  const: 'invalid_value',
  anyOf: 'invalid_value',
  format: 'invalid_format',
  pattern: 'invalid_format',
};

export function detailsFromSchemaErrors(errors: ErrorObject[], options: { rowsMember: string; fieldOf?: (path: string[]) => string }): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    const path = error.instancePath.split('/').slice(1);
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    const named = params.missingProperty ?? params.additionalProperty;
    let row_number: number | undefined;
    let fieldPath = path;
    if (path[0] === options.rowsMember && path.length >= 2 && /^\d+$/.test(path[1])) {
      row_number = Number(path[1]) + 1;
      fieldPath = path.slice(2);
    }
    let field: string;
    if (row_number !== undefined) {
      // Row fields are named as the contract names them; an unknown member of a row is reported on the rows member.
      if (named && error.keyword === 'required') fieldPath = [...fieldPath, named];
      field = error.keyword === 'additionalProperties' || fieldPath.length === 0 ? options.rowsMember : fieldPath[0];
    } else {
      if (named) fieldPath = [...fieldPath, named];
      field = options.fieldOf ? options.fieldOf(fieldPath) : fieldPath.join('.') || 'body';
    }
    details.push({ ...(row_number !== undefined ? { row_number } : {}), field, code: CODES[error.keyword] ?? 'invalid_value' });
  }
  return distinctDetails(details);
}
