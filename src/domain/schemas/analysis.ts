/** Analysis resources (2.9) and their queries (4.10-4.11a). */
import { Type } from '@sinclair/typebox';
import {
  BuiltUri,
  CatalogKey,
  Code,
  Count,
  Cursor,
  DateTime,
  Nullable,
  PAGE_SIZE_MAX,
  RESPONSE_BUDGET_BYTES,
  RequestId,
  Revision,
  StoredText,
  Uri,
  Uuid,
} from './common.js';

const strict = { additionalProperties: false } as const;
const ScorePct = Nullable(Type.Number({ minimum: 0, maximum: 100 }));
/** Room for the catalog (43 checks in 7 categories today) to grow; a catalog past it would fail its own test. */
const CATALOG_MAX = 200;
/** Codes of one kind a summary can name (limitations, freshness reasons: a handful each). */
const CODES_MAX = 32;
/** A check's evidence images: the section's card and what was captured; bounded by the record's budget (an entry takes over 100 bytes). */
const EVIDENCE_PER_CHECK_MAX = Math.floor(RESPONSE_BUDGET_BYTES / 100);

const Tally = Type.Object({ id: Uuid, key: CatalogKey, good: Count, optimize: Count, answered: Count, score_pct: ScorePct, revision: Revision }, strict);

export const AnalysisSummary = Type.Object(
  {
    report: Type.Object(
      {
        id: Uuid,
        name: StoredText(200),
        archived: Type.Boolean(),
        company: Type.Object(
          {
            name: StoredText(200),
            domain: StoredText(2048),
            pronet_url: Uri,
            observed_context: Nullable(
              Type.Object(
                {
                  name: Nullable(StoredText()),
                  tagline: Nullable(StoredText()),
                  industry: Nullable(StoredText()),
                  follower_count: Nullable(Count),
                  website: Nullable(StoredText()),
                  captured_at: DateTime,
                },
                strict,
              ),
            ),
          },
          strict,
        ),
      },
      strict,
    ),
    links: Type.Object({ workspace_url: BuiltUri, public_url: Nullable(BuiltUri) }, strict),
    availability: Type.Union([Type.Literal('none'), Type.Literal('partial'), Type.Literal('available')]),
    has_usable_results: Type.Boolean(),
    coverage: Type.Object(
      {
        person_profiles: Count,
        optimization: Type.Object({ analyzed_profiles: Count, answered_checks: Count, unknown_checks: Count, profiles_without_usable_analysis: Count }, strict),
        activity: Type.Object({ observed_person_profiles: Count, company_page_observed: Type.Boolean(), incomplete_person_profiles: Count }, strict),
      },
      strict,
    ),
    work: Type.Object(
      {
        state: Type.Union(['not_requested', 'queued', 'processing', 'completed', 'completed_with_issues', 'failed', 'unknown'].map((s) => Type.Literal(s))),
        all_requested_work_terminal: Type.Boolean(),
        all_requested_work_succeeded: Type.Boolean(),
        counts: Type.Object(
          {
            requested: Count,
            queued: Count,
            processing: Count,
            succeeded: Count,
            failed: Count,
            inaccessible: Count,
            cancelled: Count,
            warnings: Count,
          },
          strict,
        ),
        // Every run of the report (it grows with its imports): bounded by the response budget only.
        scan_run_ids: Type.Array(Uuid, { maxItems: Math.floor(RESPONSE_BUDGET_BYTES / 39) }),
      },
      strict,
    ),
    freshness: Type.Object(
      {
        state: Type.Union([Type.Literal('current'), Type.Literal('stale'), Type.Literal('unknown')]),
        reasons: Type.Array(Code, { maxItems: CODES_MAX }),
        oldest_captured_at: Nullable(DateTime),
        newest_captured_at: Nullable(DateTime),
      },
      strict,
    ),
    evaluated_at: DateTime,
    results_revision: Revision,
    work_revision: Revision,
    collections: Type.Object({ profiles_revision: Revision, activity_revision: Revision }, strict),
    optimization_summary: Type.Object(
      {
        method: Type.Literal('existing_profile_check_aggregation'),
        cohort_profile_count: Count,
        counts: Type.Object({ good: Count, optimize: Count, answered: Count, unknown: Count, score_pct: ScorePct }, strict),
        categories: Type.Array(Tally, { maxItems: CATALOG_MAX }),
        checks: Type.Array(Tally, { maxItems: CATALOG_MAX }),
      },
      strict,
    ),
    limitations: Type.Array(Type.Object({ code: Code, message: StoredText(1000) }, strict), { maxItems: CODES_MAX }),
  },
  strict,
);

export const AnalysisSummaryResponse = Type.Object({ data: AnalysisSummary, request_id: RequestId }, strict);

const Observed = Nullable(Type.Union([StoredText(), Type.Number(), Type.Boolean()]));

export const FindingsRecord = Type.Object(
  {
    profile_id: Uuid,
    pronet_url: Uri,
    name: Nullable(StoredText()),
    title: Nullable(StoredText()),
    headline: Nullable(StoredText()),
    revision: Revision,
    analysis: Nullable(
      Type.Object(
        {
          catalog_version: Type.String({ maxLength: 32, pattern: '^[0-9]{4}-[0-9]{2}(-[0-9]+)?$' }),
          captured_at: DateTime,
          available_at: DateTime,
          counts: Type.Object({ good: Count, optimize: Count, unknown: Count, answered: Count, score_pct: ScorePct }, strict),
          checks: Type.Array(
            Type.Object(
              {
                id: Uuid,
                key: CatalogKey,
                title: StoredText(200),
                category: Type.Object({ id: Nullable(Uuid), key: CatalogKey }, strict),
                outcome: Type.Union([Type.Literal('good'), Type.Literal('optimize'), Type.Literal('unknown')]),
                observed_value: Observed,
                recommendation: Nullable(StoredText()),
                source_url: BuiltUri,
                evidence: Type.Object(
                  { images: Type.Array(Type.Object({ url: BuiltUri, preview_url: BuiltUri }, strict), { maxItems: EVIDENCE_PER_CHECK_MAX }) },
                  strict,
                ),
              },
              strict,
            ),
            { maxItems: CATALOG_MAX },
          ),
        },
        strict,
      ),
    ),
    reason: Nullable(StoredText()),
  },
  strict,
);

const NullableCount = Nullable(Count);
export const ActivityEvent = Type.Object(
  {
    id: Uuid,
    profile_id: Nullable(Uuid),
    event_type: Type.Union(['post', 'repost', 'comment', 'reaction', 'unknown'].map((s) => Type.Literal(s))),
    actor: Type.Object({ kind: Type.Union([Type.Literal('person'), Type.Literal('company_page')]), url: StoredText(), name: Nullable(StoredText()) }, strict),
    source_url: Nullable(StoredText()),
    text: Nullable(StoredText()),
    occurred_at: Nullable(DateTime),
    counts: Type.Object({ reactions: NullableCount, comments: NullableCount, reposts: NullableCount }, strict),
    provenance: Type.Union([Type.Literal('scanner'), Type.Literal('legacy'), Type.Literal('unknown')]),
    captured_at: Nullable(DateTime),
    available_at: Nullable(DateTime),
    updated_at: Nullable(DateTime),
    revision: Revision,
  },
  strict,
);

/** Analysis collection pages (2.1): records plus top-level `revision` and `next_cursor`. */
const CollectionEnvelope = <T extends ReturnType<typeof Type.Object>>(record: T) =>
  Type.Object({ data: Type.Array(record, { maxItems: PAGE_SIZE_MAX }), revision: Revision, next_cursor: Nullable(Cursor), request_id: RequestId }, strict);

export const FindingsPage = CollectionEnvelope(FindingsRecord);
export const ActivityPage = CollectionEnvelope(ActivityEvent);

/** A revision read from the summary (opaque, base64url); anything else is a malformed request. */
const ExpectedRevision = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' });

export const FindingsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 25, default: 10, format: 'int32' }),
    cursor: Type.Optional(Cursor),
    expected_revision: Type.Optional(ExpectedRevision),
    profile_id: Type.Optional(Uuid),
  },
  strict,
);

export const ActivityQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25, format: 'int32' }),
    cursor: Type.Optional(Cursor),
    expected_revision: Type.Optional(ExpectedRevision),
    profile_id: Type.Optional(Uuid),
    event_type: Type.Optional(Type.Union(['post', 'repost', 'comment', 'reaction', 'unknown'].map((s) => Type.Literal(s)))),
    occurred_from: Type.Optional(Type.String({ maxLength: 64, format: 'date-time' })),
    occurred_to: Type.Optional(Type.String({ maxLength: 64, format: 'date-time' })),
  },
  strict,
);
