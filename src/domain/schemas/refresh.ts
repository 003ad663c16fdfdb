/**
 * The refresh extension (not part of the contract): `POST
 * /reports/{id}/refreshes` and what it answers (use-cases/refresh-report.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Count, DateTime, SingleEnvelope, Uuid } from './common.js';

const strict = { additionalProperties: false } as const;

/** The most people one refresh may name (a report's size limit is larger than any roster the web shows at once). */
export const MAX_REFRESH_PEOPLE = 1000;

/** Optional: without a body (or without `profile_ids`) every active person of the report is scanned again. */
export const RefreshBody = Type.Object({ profile_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: MAX_REFRESH_PEOPLE })) }, strict);
export type RefreshBody = Static<typeof RefreshBody>;

export const RefreshReceipt = Type.Object(
  {
    id: Uuid,
    report_id: Uuid,
    people_requested: Count,
    people_queued: Count,
    scan_requests: Type.Array(
      Type.Object(
        {
          scan_run_id: Uuid,
          mode: Type.Union([Type.Literal('full_profile'), Type.Literal('activity')]),
          jobs_created: Count,
          jobs_coalesced: Count,
        },
        strict,
      ),
      { maxItems: 2 },
    ),
    created_at: DateTime,
  },
  strict,
);
export type RefreshReceipt = Static<typeof RefreshReceipt>;

export const RefreshResponse = SingleEnvelope(RefreshReceipt);
