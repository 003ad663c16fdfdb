/**
 * Writes of stored analysis by the scan workers: evidence images, profile
 * data and findings, activity events and coverage, company context.
 * A person's item reads the person once, before its writes
 * (`readFinishFacts`), and builds its writes as single statements that go
 * into the one statement that ends it (`evidenceWrites`, `activityWrites`,
 * `analysisWrites`; queue/finish.ts, endPersonItem); what those writes
 * leave is domain/finish-facts.ts (`finishFacts`). The
 * company page's item does the same with what it reads of the company page
 * (`readCompanyFinish`; its evidence, events and context: `companyWrite`;
 * queue/finish.ts, endCompanyItem).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import { activityRecord } from '../domain/analysis-records.js';
import { revisionOf } from '../domain/revision.js';
import type { analysisChange, ProfileAnalysis } from '../domain/profile-analysis.js';
import type { EventRow, EvidenceImageRow, FinishBefore } from '../domain/finish-facts.js';
import type { ActivityGap, CollectedActivityEvent, CollectedCompany, CollectedProfile } from '../domain/collected.js';
import type { EvidenceOrigin, PreparedEvidence } from '../domain/collected.js';
import { unnestColumns } from './fixed-text.js';
import { insertRowIf } from './one-statement.js';
import { UNFLATTENED } from './plan-fence.js';
import { historyRoundSql, type HistoryRound } from './history-repository.js';
import { personFactsJson, personFromJson, type PersonFactsRow } from './person-facts.js';
import { NIL_SUBJECT, type Database, type ItemStatus } from './schema.js';

export interface EvidenceToStore {
  section: string;
  origin: EvidenceOrigin;
  prepared: PreparedEvidence;
}

/**
 * The writes that record an item's evidence, as single statements (for the
 * statement that ends the item), and the rows
 * they insert. Older evidence of the same subject and section becomes
 * obsolete: a newer observation of a section replaces all of that section's
 * older images (card and captured alike). The update never meets a row the
 * insert writes (another item's rows). The same image of a section twice is
 * stored once (and a replayed finish stores nothing again). Each writes
 * only if `when` holds (store/one-statement.ts, gateHolds).
 */
export function evidenceWrites(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string | null; itemId: string; images: EvidenceToStore[] },
  now: Date,
  when: RawBuilder<boolean>,
): { writes: OperationNodeSource[]; rows: EvidenceImageRow[] } {
  if (input.images.length === 0) return { writes: [], rows: [] };
  const seen = new Set<string>();
  const images = input.images.filter((image) => {
    const key = `${image.section}\n${image.prepared.original.sha256}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
  const sections = [...new Set(images.map((image) => image.section))];
  const values = images.map((image) => ({
    id: randomUUID(),
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
  }));
  const superseded = db
    .updateTable('evidence_images')
    .set({ obsolete: true, obsolete_at: now })
    .where('report_id', '=', input.reportId)
    // One text whatever the number of sections (an `in` list is a text per length: prepared-statements.ts).
    .where(sql<boolean>`section = any(${sections}::text[])`)
    .where('obsolete', '=', false)
    .where('item_id', '!=', input.itemId)
    .where(when)
    .$if(input.profileId === null, (q) => q.where('profile_id', 'is', null))
    .$if(input.profileId !== null, (q) => q.where('profile_id', '=', input.profileId));
  // The rows as one array per column: one text (and one prepared statement) whatever their number, and no
  // query tree of a node per value to build (fixed-text.ts says what that trades).
  const inserted = sql`
    insert into evidence_images (id, report_id, profile_id, item_id, section, original_sha256, original_size, original_type,
                                 preview_sha256, preview_size, preview_type, original_width, original_height, preview_width,
                                 preview_height, origin, created_at)
    select v.id, ${input.reportId}::uuid, ${input.profileId}::uuid, ${input.itemId}::uuid, v.section, v.original_sha256, v.original_size,
           v.original_type, v.preview_sha256, v.preview_size, v.preview_type, v.original_width, v.original_height, v.preview_width,
           v.preview_height, v.origin, ${now}::timestamptz
      from ${unnestColumns([
        ['id', 'uuid', values.map((v) => v.id)],
        ['section', 'text', values.map((v) => v.section)],
        ['original_sha256', 'text', values.map((v) => v.original_sha256)],
        ['original_size', 'integer', values.map((v) => v.original_size)],
        ['original_type', 'text', values.map((v) => v.original_type)],
        ['preview_sha256', 'text', values.map((v) => v.preview_sha256)],
        ['preview_size', 'integer', values.map((v) => v.preview_size)],
        ['preview_type', 'text', values.map((v) => v.preview_type)],
        ['original_width', 'integer', values.map((v) => v.original_width)],
        ['original_height', 'integer', values.map((v) => v.original_height)],
        ['preview_width', 'integer', values.map((v) => v.preview_width)],
        ['preview_height', 'integer', values.map((v) => v.preview_height)],
        ['origin', 'text', values.map((v) => v.origin)],
      ])}
     where ${when}
    on conflict (item_id, section, original_sha256) do nothing`;
  return {
    writes: [superseded, inserted],
    rows: values.map((v) => ({ id: v.id, section: v.section, origin: v.origin, item_id: v.item_id, original_sha256: v.original_sha256 })),
  };
}

/** A stored event of a subject, as an upsert of the same source event is decided against it. */
export interface ExistingEvent {
  id: string;
  content_hash: string;
  updated_at: Date | null;
}

/**
 * The subject's stored events among `externalIds` (null when there are none
 * to look for): a person's events by the person alone
 * (`activity_events_person`: no index that starts with the report can serve
 * it, migration 0034), the company page's by the report and the nil subject
 * (`activity_events_subject_key`); then those ids, compared outside the
 * subquery (plan-fence.ts) so that they are never an index condition.
 */
function existingEventsQuery(db: Kysely<Database>, input: { reportId: string; profileId: string | null; externalIds: string[] }) {
  if (input.externalIds.length === 0) return null;
  const events = db.selectFrom('activity_events').select(['external_id', 'id', 'content_hash', 'updated_at']);
  const subjectEvents = (
    input.profileId === null
      ? events.where('report_id', '=', input.reportId).where('subject', '=', NIL_SUBJECT)
      : events.where('profile_id', '=', input.profileId)
  )
    .modifyEnd(UNFLATTENED)
    .as('e');
  return (
    db
      .selectFrom(subjectEvents)
      .selectAll()
      // One text whatever the number of ids (an `in` list is a text per length, each planned anew: prepared-statements.ts).
      .where(sql<boolean>`e.external_id = any(${input.externalIds}::text[])`)
  );
}

/**
 * The writes that upsert observed activity events (idempotent by external
 * id) and, for a person, their coverage, as single statements, and the rows
 * they leave. `existing`: the subject's stored events among these ids.
 * `updated_at` moves only when the event's content changed; `revision`
 * covers every visible field, observation timestamps included. Each writes
 * only if `when` holds (store/one-statement.ts, gateHolds).
 */
export function activityWrites(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string | null; itemId: string; events: CollectedActivityEvent[]; capturedAt: Date },
  now: Date,
  existing: ReadonlyMap<string, ExistingEvent>,
  when: RawBuilder<boolean>,
): { writes: OperationNodeSource[]; rows: EventRow[] } {
  const stored: EventRow[] = [];
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
    stored.push({ id, revision: record.revision, event: { external_id: event.external_id, ...content } });
    return {
      id,
      external_id: event.external_id,
      event_type: event.event_type,
      actor_kind: event.actor.kind,
      actor: JSON.stringify(event.actor),
      source_url: event.source_url,
      text: event.text,
      occurred_at: event.occurred_at,
      counts: JSON.stringify(event.counts),
      updated_at: updatedAt,
      content_hash: contentHash,
      revision: record.revision,
    };
  });
  const writes: OperationNodeSource[] = [];
  if (rows.length > 0) {
    // One array per column, as evidenceWrites does: one text whatever the number of events.
    writes.push(sql`
      insert into activity_events (id, report_id, profile_id, external_id, event_type, actor_kind, actor, source_url, text, occurred_at,
                                   counts, provenance, captured_at, available_at, updated_at, content_hash, revision)
      select v.id, ${input.reportId}::uuid, ${input.profileId}::uuid, v.external_id, v.event_type, v.actor_kind, v.actor, v.source_url,
             v.text, v.occurred_at, v.counts, 'scanner', ${input.capturedAt}::timestamptz, ${now}::timestamptz, v.updated_at,
             v.content_hash, v.revision
        from ${unnestColumns([
          ['id', 'uuid', rows.map((r) => r.id)],
          ['external_id', 'text', rows.map((r) => r.external_id)],
          ['event_type', 'text', rows.map((r) => r.event_type)],
          ['actor_kind', 'text', rows.map((r) => r.actor_kind)],
          ['actor', 'jsonb', rows.map((r) => r.actor)],
          ['source_url', 'text', rows.map((r) => r.source_url)],
          ['text', 'text', rows.map((r) => r.text)],
          ['occurred_at', 'timestamptz', rows.map((r) => r.occurred_at)],
          ['counts', 'jsonb', rows.map((r) => r.counts)],
          ['updated_at', 'timestamptz', rows.map((r) => r.updated_at)],
          ['content_hash', 'text', rows.map((r) => r.content_hash)],
          ['revision', 'text', rows.map((r) => r.revision)],
        ])}
       where ${when}
      on conflict (report_id, subject, external_id) do update
        set event_type = excluded.event_type, actor_kind = excluded.actor_kind, actor = excluded.actor, source_url = excluded.source_url,
            text = excluded.text, occurred_at = excluded.occurred_at, counts = excluded.counts, captured_at = excluded.captured_at,
            available_at = excluded.available_at, updated_at = excluded.updated_at, content_hash = excluded.content_hash,
            revision = excluded.revision`);
  }
  if (input.profileId !== null) {
    // A person's activity is covered from now on (the company page's events have no coverage row).
    const coverage = {
      report_id: input.reportId,
      item_id: input.itemId,
      event_count: input.events.filter((e) => e.actor.kind === 'person').length,
      captured_at: input.capturedAt,
      available_at: now,
    };
    writes.push(
      insertRowIf(db, 'activity_coverage', { profile_id: input.profileId, ...coverage }, when).onConflict((oc) =>
        oc.column('profile_id').doUpdateSet(coverage),
      ),
    );
  }
  return { writes, rows: stored };
}

/** The write that stores the company page's observed context (one row per report, the newest observation), if `when` holds. */
export function companyWrite(
  db: Kysely<Database>,
  input: { reportId: string; itemId: string; company: CollectedCompany; capturedAt: Date },
  now: Date,
  when: RawBuilder<boolean>,
): OperationNodeSource {
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
  return insertRowIf(db, 'company_context', { report_id: input.reportId, ...values }, when).onConflict((oc) => oc.column('report_id').doUpdateSet(values));
}

/** What the company page's finishing item reads in one statement, before its writes (`readCompanyFinish`). */
export interface CompanyFinishRead {
  /** The version of the company page's stored observation (migration 0037), which the statement that ends the item checks. */
  companyVersion: string;
  /** The company page's stored events among those the item observed, by external id (`activityWrites`). */
  existingEvents: Map<string, ExistingEvent>;
  /** The media collection generation (maintenance-repository.ts) as of the read. */
  mediaGeneration: number;
}

/**
 * What a finishing item of the company page reads, in one statement, before
 * its writes, which go into the statement that ends the item
 * (queue/finish.ts, endCompanyItem): the stored events the item's
 * observation will update, the media collection generation, and the
 * version of the company page's observation, which that statement checks.
 * Null when the report is gone.
 */
export async function readCompanyFinish(db: Kysely<Database>, input: { reportId: string; observedEventIds: string[] }): Promise<CompanyFinishRead | null> {
  const existing = existingEventsQuery(db, { reportId: input.reportId, profileId: null, externalIds: input.observedEventIds });
  const { rows } = await sql<{
    company_version: string;
    existing: { external_id: string; id: string; content_hash: string; updated_at: string | null }[] | null;
    media_generation: number;
  }>`
    select r.company_version,
           ${existing ? sql`(select json_agg(x) from (${existing}) x)` : sql`null`} as existing,
           coalesce((select media_gc_generation from maintenance_state), 0) as media_generation
      from reports r where r.id = ${input.reportId}`.execute(db);
  const row = rows[0];
  if (!row) return null;
  return { companyVersion: row.company_version, existingEvents: existingFrom(row.existing), mediaGeneration: Number(row.media_generation) };
}

/** The stored events of a finish's read (`existingEventsQuery` as JSON), by external id. */
function existingFrom(rows: { external_id: string; id: string; content_hash: string; updated_at: string | null }[] | null): Map<string, ExistingEvent> {
  return new Map(
    (rows ?? []).map((e) => [e.external_id, { id: e.id, content_hash: e.content_hash, updated_at: e.updated_at === null ? null : new Date(e.updated_at) }]),
  );
}

/** What a finishing item of a person reads in one statement, before it ends and before its own writes (`readFinishFacts`). */
export interface FinishRead extends FinishBefore {
  /** The person's stored events among those the item observed, by external id (`activityWrites`). */
  existingEvents: Map<string, ExistingEvent>;
  /** The media collection generation (maintenance-repository.ts) as of the read. */
  mediaGeneration: number;
  /** The attachment's version (migration 0035) as of the read; null when the attachment is gone. */
  factsVersion: string | null;
  /** The history round the ending item writes in, and the person's scan before it (store/history-repository.ts); null without an ending item or an observation. */
  history: HistoryRound | null;
}

/**
 * What a finishing item of a person reads, in one statement, on its own,
 * before its writes (domain/finish-facts.ts adds them), which go into the statement
 * that ends the item (queue/finish.ts, endPersonItem): the stored
 * analysis and profile data, the person's activity and evidence, the stored
 * events the item's observation will update, the person's roll-up facts
 * (with the item as it ends: `ended`), the media collection generation,
 * the attachment's version, which that statement checks, and the history
 * round the item writes in with the person's previous scan (`observes`: the
 * ending item observed the profile).
 */
export async function readFinishFacts(
  db: Kysely<Database>,
  input: {
    reportId: string;
    profileId: string;
    observedEventIds: string[];
    /** Absent: the facts as stored. */
    ended?: EndedItem;
    observes?: boolean;
  },
): Promise<FinishRead> {
  const existing = existingEventsQuery(db, { ...input, externalIds: input.observedEventIds });
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
    evidence: EvidenceImageRow[] | null;
    existing: { external_id: string; id: string; content_hash: string; updated_at: string | null }[] | null;
    person: Parameters<typeof personFromJson>[0];
    media_generation: number;
    facts_version: string | null;
    history: HistoryRound | null;
  }>`
    select a.profile_data, a.captured_at, a.item_id, a.revision, a.catalog_version, a.available_at, a.analysis_format,
           c.covered,
           case when c.covered then
             (select json_agg(json_build_object('external_id', e.external_id, 'event_type', e.event_type, 'actor', e.actor,
                                                'source_url', e.source_url, 'text', e.text, 'occurred_at', e.occurred_at, 'counts', e.counts))
                from activity_events e
               where e.profile_id = ${input.profileId} and e.actor_kind = 'person')
           end as events,
           (select json_agg(json_build_object('id', i.id, 'section', i.section, 'origin', i.origin, 'item_id', i.item_id,
                                              'original_sha256', i.original_sha256))
              from evidence_images i
             where i.report_id = ${input.reportId} and i.profile_id = ${input.profileId} and not i.obsolete) as evidence,
           ${existing ? sql`(select json_agg(x) from (${existing}) x)` : sql`null`} as existing,
           ${personFactsJson(input.reportId, input.profileId)} as person,
           coalesce((select media_gc_generation from maintenance_state), 0) as media_generation,
           (select rp.facts_version from report_profiles rp where rp.id = ${input.profileId}) as facts_version,
           ${
             input.ended
               ? historyRoundSql({
                   reportId: input.reportId,
                   profileId: input.profileId,
                   endingItemId: input.ended.id,
                   observes: input.observes ?? false,
                   observedItemId: sql<string | null>`a.item_id`,
                 })
               : sql`null`
           } as history
      from (select exists (select 1 from activity_coverage where profile_id = ${input.profileId}) as covered) c
      left join profile_analyses a on a.profile_id = ${input.profileId}`.execute(db);
  const row = rows[0];
  return {
    stored:
      row.item_id === null
        ? undefined
        : {
            analysis: {
              item_id: row.item_id,
              captured_at: row.captured_at!,
              revision: row.revision!,
              catalog_version: row.catalog_version!,
              available_at: row.available_at!,
              analysis_format: row.analysis_format,
            },
            profile: row.profile_data!,
          },
    activity: {
      covered: row.covered,
      events: (row.events ?? []).map((e) => ({ ...e, occurred_at: e.occurred_at === null ? null : new Date(e.occurred_at).toISOString() })),
    },
    evidence: row.evidence ?? [],
    existingEvents: existingFrom(row.existing),
    person: personFromJson(row.person && input.ended ? endedIn(row.person, input.ended) : row.person),
    mediaGeneration: Number(row.media_generation),
    factsVersion: row.facts_version,
    history: row.history,
  };
}

/** The item a finish ends, and how (its person's facts are read before the end). */
export interface EndedItem {
  id: string;
  status: ItemStatus;
  warning: boolean;
  /** Why it did not observe the activity it was asked for (queue/finish.ts, ItemEnd); absent: null. */
  activity_gap?: ActivityGap | null;
}

/** The person's facts with `ended` as it ends: their latest item of its mode when it is that one. */
function endedIn(row: PersonFactsRow, ended: EndedItem): PersonFactsRow {
  const latest =
    row.latest?.map((item) =>
      item.id === ended.id ? { ...item, status: ended.status, warning: ended.warning, activity_gap: ended.activity_gap ?? null } : item,
    ) ?? null;
  return { ...row, latest };
}

/**
 * The writes of a person's analysis as `change` (domain/profile-analysis.ts)
 * says: none, its text only, or the whole analysis with the profile data it
 * was evaluated from, observed by `itemId` (the attachment's
 * `analysis_available` flag is set by the statement's own update of the
 * attachment: queue/finish.ts, endPersonItem). Single statements, for
 * the statement that ends the item, each writing only if `when` holds.
 */
export function analysisWrites(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; itemId: string; profile: CollectedProfile },
  analysis: ProfileAnalysis,
  change: ReturnType<typeof analysisChange>,
  when: RawBuilder<boolean>,
): OperationNodeSource[] {
  if (change.kind === 'unchanged') return [];
  if (change.kind === 'text') return [db.updateTable('profile_analyses').set(change.text).where('profile_id', '=', input.profileId).where(when)];
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
    insertRowIf(db, 'profile_analyses', { profile_id: input.profileId, ...values }, when).onConflict((oc) => oc.column('profile_id').doUpdateSet(values)),
  ];
}
