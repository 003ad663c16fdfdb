/**
 * Schema building blocks shared by every resource. Each resource's schema
 * (TypeBox) drives request validation, response serialization, its
 * TypeScript type (Static<>) and the OpenAPI document.
 */
import { Type, type StringOptions, type TSchema } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const Uri = Type.String({ format: 'uri' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Text PostgreSQL can store: no NUL character and no lone surrogate. Ajv
 * compiles patterns with the `u` flag, so a surrogate pair (one code point
 * above U+FFFF) passes and only an unpaired half matches the range. A value
 * that fails is refused at validation (`invalid_format`, naming the field,
 * echoing nothing) instead of failing in the database.
 */
export const STORABLE_TEXT = '^[^\\u0000\\uD800-\\uDFFF]*$';
export const Text = (options: StringOptions = {}) => Type.String({ ...options, pattern: STORABLE_TEXT });

export const RequestId = Uuid;

/** `{data: <resource>, request_id}` (section 2.1). */
export const SingleEnvelope = <T extends TSchema>(data: T, $id?: string) =>
  Type.Object({ data, request_id: RequestId }, { additionalProperties: false, ...($id ? { $id } : {}) });

/** `{data: [<resource>], page: {next_cursor}, request_id}` (section 2.1). */
export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      data: Type.Array(item),
      page: Type.Object({ next_cursor: Nullable(Type.String({ maxLength: 2048 })) }, { additionalProperties: false }),
      request_id: RequestId,
    },
    { additionalProperties: false },
  );

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String(),
        message: Type.String(),
        retryable: Type.Optional(Type.Boolean()),
        next_action: Type.Optional(Type.String()),
        details: Type.Optional(
          Type.Array(Type.Object({ row_number: Type.Optional(Type.Integer({ minimum: 1 })), field: Type.String(), code: Type.String() }), {
            maxItems: 100,
          }),
        ),
      },
      { additionalProperties: false },
    ),
    request_id: RequestId,
  },
  { additionalProperties: false },
);

export const ReportIdParams = Type.Object({ report_id: Uuid }, { additionalProperties: false });
