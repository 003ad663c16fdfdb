/** Analysis resources (2.9) and their queries (4.10-4.11a). */
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, RequestId, Uri, Uuid } from './common.js';

const strict = { additionalProperties: false } as const;
const Count = Type.Integer({ minimum: 0 });
const ScorePct = Nullable(Type.Number({ minimum: 0, maximum: 100 }));
const Revision = Type.String();

const Tally = Type.Object({ id: Uuid, key: Type.String(), good: Count, optimize: Count, answered: Count, score_pct: ScorePct, revision: Revision }, strict);

export const AnalysisSummary = Type.Object(
  {
    report: Type.Object(
      {
        id: Uuid,
        name: Type.String(),
        archived: Type.Boolean(),
        company: Type.Object(
          {
            name: Type.String(),
            domain: Type.String(),
            pronet_url: Uri,
            observed_context: Nullable(
              Type.Object(
                {
                  name: Nullable(Type.String()),
                  tagline: Nullable(Type.String()),
                  industry: Nullable(Type.String()),
                  follower_count: Nullable(Count),
                  website: Nullable(Type.String()),
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
    links: Type.Object({ workspace_url: Uri, public_url: Nullable(Uri) }, strict),
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
        scan_run_ids: Type.Array(Uuid),
      },
      strict,
    ),
    freshness: Type.Object(
      {
        state: Type.Union([Type.Literal('current'), Type.Literal('stale'), Type.Literal('unknown')]),
        reasons: Type.Array(Type.String()),
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
        categories: Type.Array(Tally),
        checks: Type.Array(Tally),
      },
      strict,
    ),
    limitations: Type.Array(Type.Object({ code: Type.String(), message: Type.String() }, strict)),
  },
  strict,
);

export const AnalysisSummaryResponse = Type.Object({ data: AnalysisSummary, request_id: RequestId }, strict);

const Observed = Nullable(Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

export const FindingsRecord = Type.Object(
  {
    profile_id: Uuid,
    pronet_url: Uri,
    name: Nullable(Type.String()),
    title: Nullable(Type.String()),
    headline: Nullable(Type.String()),
    revision: Revision,
    analysis: Nullable(
      Type.Object(
        {
          catalog_version: Type.String(),
          captured_at: DateTime,
          available_at: DateTime,
          counts: Type.Object({ good: Count, optimize: Count, unknown: Count, answered: Count, score_pct: ScorePct }, strict),
          checks: Type.Array(
            Type.Object(
              {
                id: Uuid,
                key: Type.String(),
                title: Type.String(),
                category: Type.Object({ id: Nullable(Uuid), key: Type.String() }, strict),
                outcome: Type.Union([Type.Literal('good'), Type.Literal('optimize'), Type.Literal('unknown')]),
                observed_value: Observed,
                recommendation: Nullable(Type.String()),
                source_url: Uri,
                evidence: Type.Object({ images: Type.Array(Type.Object({ url: Uri, preview_url: Uri }, strict)) }, strict),
              },
              strict,
            ),
          ),
        },
        strict,
      ),
    ),
    reason: Nullable(Type.String()),
  },
  strict,
);

const NullableCount = Nullable(Count);
export const ActivityEvent = Type.Object(
  {
    id: Uuid,
    profile_id: Nullable(Uuid),
    event_type: Type.String(),
    actor: Type.Object({ kind: Type.Union([Type.Literal('person'), Type.Literal('company_page')]), url: Type.String(), name: Nullable(Type.String()) }, strict),
    source_url: Nullable(Type.String()),
    text: Nullable(Type.String()),
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
  Type.Object({ data: Type.Array(record), revision: Revision, next_cursor: Nullable(Type.String({ maxLength: 2048 })), request_id: RequestId }, strict);

export const FindingsPage = CollectionEnvelope(FindingsRecord);
export const ActivityPage = CollectionEnvelope(ActivityEvent);

const Cursor = Type.String({ minLength: 1, maxLength: 2048 });

export const FindingsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 25, default: 10 }),
    cursor: Type.Optional(Cursor),
    expected_revision: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    profile_id: Type.Optional(Uuid),
  },
  strict,
);

export const ActivityQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
    cursor: Type.Optional(Cursor),
    expected_revision: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    profile_id: Type.Optional(Uuid),
    event_type: Type.Optional(Type.Union(['post', 'repost', 'comment', 'reaction', 'unknown'].map((s) => Type.Literal(s)))),
    occurred_from: Type.Optional(Type.String({ maxLength: 64 })),
    occurred_to: Type.Optional(Type.String({ maxLength: 64 })),
  },
  strict,
);
