/** ProfileImport (2.7), preview, receipt and validation error (2.8). */
import { Type, type Static } from '@sinclair/typebox';
import { Count, DateTime, SingleEnvelope, StoredText, Uuid } from './common.js';
import { CreateProfileBody } from './report.js';

const strict = { additionalProperties: false } as const;
const RowNumber = Type.Integer({ minimum: 1, maximum: 100, format: 'int32' });
const ScanMode = Type.Union([Type.Literal('full_profile'), Type.Literal('activity')]);
const Note = Type.Object({ code: Type.Literal('previously_removed_profile_restored'), message: StoredText(1000) }, strict);
/** One note code exists; a row carries it at most once. */
const Notes = Type.Array(Note, { maxItems: 1 });

export const ProfileImport = Type.Object({ profiles: Type.Array(CreateProfileBody, { minItems: 1, maxItems: 100 }) }, strict);
export type ProfileImport = Static<typeof ProfileImport>;

export const ImportQuery = Type.Object({ validation_only: Type.Optional(Type.Boolean({ default: false })) }, strict);

export const ImportPreviewRow = Type.Object(
  {
    row_number: RowNumber,
    status: Type.Union(['would_add', 'would_restore', 'already_present', 'duplicate_in_input'].map((s) => Type.Literal(s))),
    duplicate_of_row: Type.Optional(RowNumber),
    notes: Type.Optional(Notes),
  },
  strict,
);

export const ImportValidation = Type.Object(
  {
    validation_only: Type.Literal(true),
    valid: Type.Literal(true),
    counts: Type.Object(
      {
        submitted: Count,
        would_add: Count,
        would_restore: Count,
        already_present: Count,
        duplicate_in_input: Count,
        would_queue_profiles: Count,
      },
      strict,
    ),
    rows: Type.Array(ImportPreviewRow, { minItems: 1, maxItems: 100 }),
  },
  strict,
);
export type ImportValidation = Static<typeof ImportValidation>;

export const ImportRow = Type.Object(
  {
    row_number: RowNumber,
    status: Type.Union(['added', 'restored', 'already_present', 'duplicate_in_input'].map((s) => Type.Literal(s))),
    duplicate_of_row: Type.Optional(RowNumber),
    notes: Type.Optional(Notes),
    profile_id: Type.Optional(Uuid),
    scan_requests: Type.Optional(Type.Array(Type.Object({ scan_run_id: Uuid, mode: ScanMode }, strict), { minItems: 2, maxItems: 2 })),
  },
  strict,
);

export const ImportScan = Type.Object(
  {
    scan_run_id: Uuid,
    mode: ScanMode,
    status_at_commit: Type.Union(['queued', 'running', 'completed', 'partial', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    jobs_created: Count,
    jobs_coalesced: Count,
  },
  strict,
);

export const ImportReceipt = Type.Object(
  {
    id: Uuid,
    report_id: Uuid,
    state: Type.Literal('completed'),
    counts: Type.Object({ submitted: Count, added: Count, restored: Count, already_present: Count, duplicate_in_input: Count, profiles_queued: Count }, strict),
    rows: Type.Array(ImportRow, { minItems: 1, maxItems: 100 }),
    // One per mode.
    scan_requests: Type.Array(ImportScan, { maxItems: 2 }),
    created_at: DateTime,
    expires_at: DateTime,
  },
  strict,
);
export type ImportReceipt = Static<typeof ImportReceipt>;

export const ImportCommitResponse = SingleEnvelope(Type.Union([ImportValidation, ImportReceipt]));
export const ImportReceiptResponse = SingleEnvelope(ImportReceipt);
export const ImportParams = Type.Object({ report_id: Uuid, import_id: Uuid }, strict);
