/**
 * The records of the analysis collections (2.9) as the API shows them:
 * per-person findings and activity events. One function per record builds
 * exactly what is served, and each record's `revision` is the hash of the
 * rest of it, so a revision changes exactly when something visible changes.
 * Pure: stored rows in, records out. Internal data (collector payloads,
 * profile_data, worker ids) never enters a record.
 */
import { CATEGORIES, CHECKS, type Finding } from './checks/catalog.js';
import { profileRecordRevision, unanalyzedReason, type LatestItem } from './analysis-aggregate.js';
import { revisionOf } from './revision.js';

export interface ActivityFields {
  id: string;
  profile_id: string | null;
  event_type: string;
  actor: { kind: 'person' | 'company_page'; url: string; name: string | null };
  source_url: string | null;
  text: string | null;
  occurred_at: string | null;
  counts: { reactions: number | null; comments: number | null; reposts: number | null };
  provenance: 'scanner' | 'legacy' | 'unknown';
  captured_at: Date | string | null;
  available_at: Date | string | null;
  updated_at: Date | string | null;
}

export type ActivityRecord = Omit<ActivityFields, 'captured_at' | 'available_at' | 'updated_at'> & {
  captured_at: string | null;
  available_at: string | null;
  updated_at: string | null;
  revision: string;
};

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function activityRecord(fields: ActivityFields): ActivityRecord {
  const body = {
    id: fields.id,
    profile_id: fields.profile_id,
    event_type: fields.event_type,
    actor: { kind: fields.actor.kind, url: fields.actor.url, name: fields.actor.name },
    source_url: fields.source_url,
    text: fields.text,
    occurred_at: iso(fields.occurred_at),
    counts: { reactions: fields.counts.reactions, comments: fields.counts.comments, reposts: fields.counts.reposts },
    provenance: fields.provenance,
    captured_at: iso(fields.captured_at),
    available_at: iso(fields.available_at),
    updated_at: iso(fields.updated_at),
  };
  return { ...body, revision: revisionOf(body) };
}

/** A stored finding: the catalog's finding plus the evidence images of its section. */
export interface StoredFinding extends Finding {
  evidence_image_ids: string[];
}

/** One person's stored analysis, as the findings record shows it. */
export interface StoredAnalysis {
  revision: string;
  catalog_version: string;
  findings: StoredFinding[];
  captured_at: Date;
  available_at: Date;
}

export interface FindingsInput {
  profileId: string;
  person: { pronet_url: string; name: string | null; title: string | null; headline: string | null };
  analysis: StoredAnalysis | null;
  /** The latest full_profile item, for the reason an unanalyzed person has no analysis. */
  full: LatestItem | null;
}

const categoryOf = new Map(CATEGORIES.map((c) => [c.key, c]));
const checkOf = new Map(CHECKS.map((c) => [c.id, c]));

export function scorePct(good: number, answered: number): number | null {
  return answered === 0 ? null : Math.round((good / answered) * 1000) / 10;
}

function sourceUrl(profileUrl: string, section: string | null): string {
  return section === 'activity' ? `${profileUrl}/recent-activity/all/` : profileUrl;
}

export function findingsRecord(input: FindingsInput, imageUrl: (imageId: string, variant?: 'preview') => string) {
  const a = input.analysis;
  const outcomes = a ? Object.fromEntries(a.findings.map((f) => [f.check_id, f.outcome])) : {};
  const revision = profileRecordRevision({
    profileId: input.profileId,
    person: input.person,
    analysis: a ? { revision: a.revision, outcomes } : null,
    full: input.full,
  });
  let analysis = null;
  if (a) {
    const good = a.findings.filter((f) => f.outcome === 'good').length;
    const optimize = a.findings.filter((f) => f.outcome === 'optimize').length;
    analysis = {
      catalog_version: a.catalog_version,
      captured_at: a.captured_at.toISOString(),
      available_at: a.available_at.toISOString(),
      counts: {
        good,
        optimize,
        unknown: a.findings.length - good - optimize,
        answered: good + optimize,
        score_pct: scorePct(good, good + optimize),
      },
      checks: a.findings.map((f) => {
        const category = categoryOf.get(f.category_key);
        return {
          id: f.check_id,
          key: f.check_key,
          title: checkOf.get(f.check_id)?.title ?? f.check_key,
          category: { id: category?.id ?? null, key: f.category_key },
          outcome: f.outcome,
          observed_value: f.observed,
          recommendation: f.recommendation,
          source_url: sourceUrl(input.person.pronet_url, f.source_section),
          evidence: { images: f.evidence_image_ids.map((id) => ({ url: imageUrl(id), preview_url: imageUrl(id, 'preview') })) },
        };
      }),
    };
  }
  return {
    profile_id: input.profileId,
    ...input.person,
    revision,
    analysis,
    reason: a ? null : unanalyzedReason(input.full),
  };
}

export type FindingsRecord = ReturnType<typeof findingsRecord>;
