/**
 * Writes of stored analysis by the scan workers: evidence images, profile
 * data and findings, activity events and coverage, company context.
 * Everything here runs inside the item's finishing transaction.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type OperationNodeSource } from 'kysely';
import { activityRecord } from '../domain/analysis-records.js';
import { revisionOf } from '../domain/revision.js';
import type { analysisChange, ProfileAnalysis, ProfileFacts, StoredAnalysisState } from '../domain/profile-analysis.js';
import type { CollectedActivityEvent, CollectedCompany, CollectedProfile } from '../domain/collected.js';
import type { EvidenceOrigin, PreparedEvidence } from '../domain/collected.js';
import { inOneStatement } from './one-statement.js';
import { personFactsJson, personFromJson, type GatheredPerson } from './rollup-repository.js';
import type { Database } from './schema.js';

/** `activity_events.subject` of company-page events. */
const NIL_SUBJECT = '00000000-0000-0000-0000-000000000000';

export interface EvidenceToStore {
  section: string;
  origin: EvidenceOrigin;
  prepared: PreparedEvidence;
}

/** Records the item's evidence; older evidence of the same subject and section becomes obsolete. */
export async function storeEvidence(
  db: Kysely<Database>,
  input: {
    reportId: string;
    profileId: string | null;
    itemId: string;
    images: EvidenceToStore[];
  },
  now: Date,
): Promise<void> {
  if (input.images.length === 0) return;
  // A newer observation of a section replaces all of that section's older images (card and captured alike).
  // One statement: the older images of every section of the item become obsolete (another item's rows: the
  // update never meets a row the insert writes), and the item's images are stored.
  const sections = [...new Set(input.images.map((image) => image.section))];
  await db
    .with('superseded', (qb) =>
      qb
        .updateTable('evidence_images')
        .set({ obsolete: true, obsolete_at: now })
        .where('report_id', '=', input.reportId)
        .where('section', 'in', sections)
        .where('obsolete', '=', false)
        .where('item_id', '!=', input.itemId)
        .$if(input.profileId === null, (q) => q.where('profile_id', 'is', null))
        .$if(input.profileId !== null, (q) => q.where('profile_id', '=', input.profileId))
        .returning('id'),
    )
    .insertInto('evidence_images')
    .values(
      input.images.map((image) => ({
        id: randomUUID(),
        report_id: input.reportId,
        profile_id: input.profileId,
        item_id: input.itemId,
        section: image.section,
        original_sha256: image.prepared.original.sha256,
        original_size: image.prepared.original.size,
        original_type: image.prepared.original.media_type,
        preview_sha256: image.prepared.preview.sha256,
        preview_size: image.prepared.preview.size,
        preview_type: image.prepared.preview.media_type,
        original_width: image.prepared.original.width,
        original_height: image.prepared.original.height,
        preview_width: image.prepared.preview.width,
        preview_height: image.prepared.preview.height,
        origin: image.origin,
        created_at: now,
      })),
    )
    // The same image of a section twice (or a replayed finish): stored once.
    .onConflict((oc) => oc.columns(['item_id', 'section', 'original_sha256']).doNothing())
    .execute();
}

/**
 * Upserts observed activity events (idempotent by external id). `updated_at`
 * moves only when the event's content changed; `revision` covers every
 * visible field, observation timestamps included.
 */
export async function storeActivity(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string | null; itemId: string; events: CollectedActivityEvent[]; capturedAt: Date },
  now: Date,
): Promise<void> {
  const existing = new Map(
    input.events.length === 0
      ? []
      : (
          await db
            .selectFrom('activity_events')
            .select(['external_id', 'id', 'content_hash', 'updated_at'])
            .where('report_id', '=', input.reportId)
            .where('subject', '=', input.profileId ?? NIL_SUBJECT)
            .where(
              'external_id',
              'in',
              input.events.map((e) => e.external_id),
            )
            .execute()
        ).map((row) => [row.external_id, row]),
  );
  const rows = input.events.map((event) => {
    const old = existing.get(event.external_id);
    const content = {
      event_type: event.event_type,
      actor: event.actor,
      source_url: event.source_url,
      text: event.text,
      occurred_at: event.occurred_at === null ? null : new Date(event.occurred_at).toISOString(),
      counts: event.counts,
    };
    const contentHash = revisionOf(content);
    const updatedAt = old && old.content_hash === contentHash ? old.updated_at : now;
    const id = old?.id ?? randomUUID();
    const record = activityRecord({
      id,
      profile_id: input.profileId,
      ...content,
      provenance: 'scanner',
      captured_at: input.capturedAt,
      available_at: now,
      updated_at: updatedAt,
    });
    return {
      id,
      report_id: input.reportId,
      profile_id: input.profileId,
      external_id: event.external_id,
      event_type: event.event_type,
      actor_kind: event.actor.kind,
      actor: JSON.stringify(event.actor),
      source_url: event.source_url,
      text: event.text,
      occurred_at: event.occurred_at,
      counts: JSON.stringify(event.counts),
      provenance: 'scanner' as const,
      captured_at: input.capturedAt,
      available_at: now,
      updated_at: updatedAt,
      content_hash: contentHash,
      revision: record.revision,
    };
  });
  const events =
    rows.length === 0
      ? null
      : db
          .insertInto('activity_events')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['report_id', 'subject', 'external_id']).doUpdateSet((eb) => ({
              event_type: eb.ref('excluded.event_type'),
              actor_kind: eb.ref('excluded.actor_kind'),
              actor: eb.ref('excluded.actor'),
              source_url: eb.ref('excluded.source_url'),
              text: eb.ref('excluded.text'),
              occurred_at: eb.ref('excluded.occurred_at'),
              counts: eb.ref('excluded.counts'),
              captured_at: eb.ref('excluded.captured_at'),
              available_at: eb.ref('excluded.available_at'),
              updated_at: eb.ref('excluded.updated_at'),
              content_hash: eb.ref('excluded.content_hash'),
              revision: eb.ref('excluded.revision'),
            })),
          );
  if (input.profileId === null) {
    await events?.execute(); // The company page's events: no coverage row.
    return;
  }
  // A person's activity is covered from now on: in the same statement as the events.
  const coverage = {
    report_id: input.reportId,
    item_id: input.itemId,
    event_count: input.events.filter((e) => e.actor.kind === 'person').length,
    captured_at: input.capturedAt,
    available_at: now,
  };
  const covered = db
    .insertInto('activity_coverage')
    .values({ profile_id: input.profileId, ...coverage })
    .onConflict((oc) => oc.column('profile_id').doUpdateSet(coverage));
  await (events ? inOneStatement([events], covered).execute(db) : covered.execute());
}

export async function storeCompany(
  db: Kysely<Database>,
  input: { reportId: string; itemId: string; company: CollectedCompany; capturedAt: Date },
  now: Date,
): Promise<void> {
  const values = {
    item_id: input.itemId,
    name: input.company.name,
    tagline: input.company.tagline,
    industry: input.company.industry,
    follower_count: input.company.follower_count,
    website: input.company.website,
    captured_at: input.capturedAt,
    available_at: now,
  };
  await db
    .insertInto('company_context')
    .values({ report_id: input.reportId, ...values })
    .onConflict((oc) => oc.column('report_id').doUpdateSet(values))
    .execute();
}

/** A person's stored analysis as the next one is decided against it, with the item that observed its profile. */
export interface StoredAnalysisRow extends StoredAnalysisState {
  item_id: string;
}

/** What a finishing item of a person reads in one statement, after its own writes (`readFinishFacts`). */
export interface FinishFacts {
  /** What the person's analysis is evaluated from, and the stored one; null when there is no profile data yet. */
  profile: { facts: ProfileFacts; stored: StoredAnalysisRow | undefined } | null;
  /** The person's roll-up facts and stored contribution (rollup-repository.ts); null when the attachment is gone. */
  person: GatheredPerson | null;
  /** The media collection generation (maintenance-repository.ts), read after the statement that took the collections' lock. */
  mediaGeneration: number;
}

/**
 * What a finishing item of a person reads, in one statement, inside its
 * transaction (under the attachment lock, so the other mode's item of the
 * person has stored its rows) and after its own evidence and activity:
 *
 * - what the person's analysis is evaluated from: the profile data
 *   (`observed` when this item collected it, else the stored one), the
 *   stored activity, the evidence images per section, and the stored
 *   analysis. Null when there is no profile data yet: findings need it,
 *   activity alone waits for it;
 * - the person's roll-up facts (the item already ended), for the delta;
 * - the media collection generation.
 */
export async function readFinishFacts(
  db: Kysely<Database>,
  input: {
    reportId: string;
    profileId: string;
    observed: { profile: CollectedProfile; capturedAt: Date } | null;
    company: { name: string; domain: string | null };
  },
): Promise<FinishFacts> {
  // The stored analysis as columns, the activity (when its coverage exists), the evidence and the roll-up facts as JSON.
  const { rows } = await sql<{
    profile_data: CollectedProfile | null;
    captured_at: Date | null;
    item_id: string | null;
    revision: string | null;
    catalog_version: string | null;
    available_at: Date | null;
    analysis_format: string | null;
    covered: boolean;
    events: (Omit<CollectedActivityEvent, 'occurred_at'> & { occurred_at: string | null })[] | null;
    evidence: { id: string; section: string }[] | null;
    person: Parameters<typeof personFromJson>[0];
    media_generation: number;
  }>`
    select a.profile_data, a.captured_at, a.item_id, a.revision, a.catalog_version, a.available_at, a.analysis_format,
           c.covered,
           case when c.covered then
             (select json_agg(json_build_object('external_id', e.external_id, 'event_type', e.event_type, 'actor', e.actor,
                                                'source_url', e.source_url, 'text', e.text, 'occurred_at', e.occurred_at, 'counts', e.counts))
                from activity_events e
               where e.report_id = ${input.reportId} and e.profile_id = ${input.profileId} and e.actor_kind = 'person')
           end as events,
           -- The section's card first (it shows the values the check read), then what was captured.
           (select json_agg(json_build_object('id', i.id, 'section', i.section) order by i.origin desc, i.id)
              from evidence_images i
             where i.report_id = ${input.reportId} and i.profile_id = ${input.profileId} and not i.obsolete) as evidence,
           ${personFactsJson(input.reportId, input.profileId)} as person,
           coalesce((select media_gc_generation from maintenance_state), 0) as media_generation
      from (select exists (select 1 from activity_coverage where profile_id = ${input.profileId}) as covered) c
      left join profile_analyses a on a.profile_id = ${input.profileId}`.execute(db);
  const row = rows[0];
  const stored: StoredAnalysisRow | undefined =
    row.item_id === null
      ? undefined
      : {
          item_id: row.item_id,
          captured_at: row.captured_at!,
          revision: row.revision!,
          catalog_version: row.catalog_version!,
          available_at: row.available_at!,
          analysis_format: row.analysis_format,
        };
  const person = personFromJson(row.person);
  const mediaGeneration = Number(row.media_generation);
  const observed = input.observed ?? (stored ? { profile: row.profile_data!, capturedAt: stored.captured_at } : null);
  if (observed === null) return { profile: null, person, mediaGeneration };
  const activity: CollectedActivityEvent[] | null = row.covered
    ? (row.events ?? []).map((e) => ({ ...e, occurred_at: e.occurred_at === null ? null : new Date(e.occurred_at).toISOString() }))
    : null;
  const imagesBySection = new Map<string, string[]>();
  for (const image of row.evidence ?? []) imagesBySection.set(image.section, [...(imagesBySection.get(image.section) ?? []), image.id]);
  return {
    profile: { facts: { profile: observed.profile, activity, company: input.company, capturedAt: observed.capturedAt, imagesBySection }, stored },
    person,
    mediaGeneration,
  };
}

/**
 * The writes of a person's analysis as `change` (domain/profile-analysis.ts)
 * says: none, its text only, or the whole analysis with the profile data it
 * was evaluated from, observed by `itemId`, and the attachment's
 * `analysis_available` flag. Single statements, for the item's last
 * statement (rollup-repository.ts, recordPersonDelta).
 */
export function analysisWrites(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; itemId: string; profile: CollectedProfile },
  analysis: ProfileAnalysis,
  change: ReturnType<typeof analysisChange>,
): OperationNodeSource[] {
  if (change.kind === 'unchanged') return [];
  if (change.kind === 'text') return [db.updateTable('profile_analyses').set(change.text).where('profile_id', '=', input.profileId)];
  const values = {
    report_id: input.reportId,
    item_id: input.itemId,
    catalog_version: analysis.catalog_version,
    profile_data: JSON.stringify(input.profile),
    findings: JSON.stringify(analysis.findings),
    good: analysis.good,
    optimize: analysis.optimize,
    unknown: analysis.unknown,
    captured_at: analysis.captured_at,
    available_at: change.available_at,
    revision: analysis.revision,
    ...change.text,
  };
  return [
    db
      .insertInto('profile_analyses')
      .values({ profile_id: input.profileId, ...values })
      .onConflict((oc) => oc.column('profile_id').doUpdateSet(values)),
    db.updateTable('report_profiles').set({ analysis_available: true }).where('id', '=', input.profileId).where('analysis_available', '=', false),
  ];
}
