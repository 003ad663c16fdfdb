/**
 * Schema building blocks shared by every resource. Each resource's schema
 * (TypeBox) drives request validation, response serialization, its
 * TypeScript type (Static<>) and the OpenAPI document.
 */
import { Type, type StringOptions, type TSchema } from '@sinclair/typebox';

/*
 * Every string and integer states its bounds (the OpenAPI document is held to
 * OWASP's API rules, .spectral.js): a request's are validated, a response's
 * are what the service guarantees.
 */
export const Uuid = Type.String({ format: 'uuid', maxLength: 36 });
/** RFC 3339 as the service writes it (Date#toISOString: 24 characters, 27 past the year 9999). */
export const DateTime = Type.String({ format: 'date-time', maxLength: 30 });
/** A URL as supplied and stored: the contract's field limit (section 8). */
export const Uri = Type.String({ format: 'uri', maxLength: 2048 });
/** A URL the service builds: PUBLIC_BASE_URL (at most 1024 characters) or a stored URL, and a path of its own. */
export const BuiltUri = Type.String({ format: 'uri', maxLength: 4096 });
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

/**
 * No string the service returns is longer than the contract's response budget
 * (section 8: 2 MiB for one record; a larger one is refused, never shortened).
 */
export const RESPONSE_BUDGET_BYTES = 2 * 1024 * 1024;
/** Text the service returns as it was stored (observed or supplied): storable, within `maxLength`. */
export const StoredText = (maxLength: number = RESPONSE_BUDGET_BYTES) => Type.String({ maxLength, pattern: STORABLE_TEXT });
/** A machine-readable code: error, limitation and freshness codes, `next_action`. */
export const Code = Type.String({ maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' });
/** A key of the checks catalog: a check (`identity.has_photo`) or a category (`identity`). */
export const CatalogKey = Type.String({ maxLength: 100, pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$' });
/** An opaque revision (domain/revision.ts: base64url). */
export const Revision = Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
/** A count. JSON numbers this service writes are exact up to 2^53 - 1. */
export const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, format: 'int64' });
/** A per-minute limit or a size limit of the workspace (src/config.ts and the workspace settings: positive int4). */
export const LimitValue = Type.Integer({ minimum: 1, maximum: 2147483647, format: 'int32' });

/** The request's id: `X-Request-ID` and `request_id` of every answer. */
export const RequestId = Type.String({ format: 'uuid', maxLength: 36 });

/** A page holds at most this many records (contract: `page_size_max`). */
export const PAGE_SIZE_MAX = 100;
/** An opaque cursor (contract section 8: at most 2048 characters; base64url). */
export const Cursor = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[A-Za-z0-9_.~-]+$' });

/** `{data: <resource>, request_id}` (section 2.1). */
export const SingleEnvelope = <T extends TSchema>(data: T, $id?: string) =>
  Type.Object({ data, request_id: RequestId }, { additionalProperties: false, ...($id ? { $id } : {}) });

/** `{data: [<resource>], page: {next_cursor}, request_id}` (section 2.1). */
export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      data: Type.Array(item, { maxItems: PAGE_SIZE_MAX }),
      page: Type.Object({ next_cursor: Nullable(Cursor) }, { additionalProperties: false }),
      request_id: RequestId,
    },
    { additionalProperties: false },
  );

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Code,
        message: StoredText(1000),
        retryable: Type.Optional(Type.Boolean()),
        next_action: Type.Optional(Code),
        details: Type.Optional(
          Type.Array(
            Type.Object({
              row_number: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, format: 'int32' })),
              field: StoredText(),
              code: Code,
            }),
            { maxItems: 100 },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    request_id: RequestId,
  },
  { additionalProperties: false },
);

export const ReportIdParams = Type.Object({ report_id: Uuid }, { additionalProperties: false });
