/**
 * The writes a finishing item composes into the statement that ends it
 * (store/analysis-repository.ts; queue/finish.ts), built from fixed
 * collected values, so the snapshot shows that statement whole.
 */
import type { Kysely, OperationNodeSource, RawBuilder } from 'kysely';
import type { CollectedActivityEvent, CollectedProfile } from '../../src/domain/collected.js';
import { analysisChange, type ProfileAnalysis } from '../../src/domain/profile-analysis.js';
import { activityWrites, analysisWrites, companyWrite, evidenceWrites } from '../../src/store/analysis-repository.js';
import type { Database } from '../../src/store/schema.js';
import { ITEM_ID, NOW, PROFILE_ID, REPORT_ID } from './sample.js';

const IMAGE = { sha256: 'a'.repeat(64), size: 1000, media_type: 'image/png', width: 800, height: 600 } as const;
const PREVIEW = { ...IMAGE, sha256: 'b'.repeat(64), size: 100 };
export const IMAGES = [{ section: 'profile', origin: 'captured' as const, prepared: { original: IMAGE, preview: PREVIEW } }];

export const EVENTS: CollectedActivityEvent[] = [
  {
    external_id: 'event-1',
    event_type: 'post',
    actor: { kind: 'person', url: 'https://pronet.example/in/sample', name: 'Sample Person' },
    source_url: 'https://pronet.example/posts/1',
    text: 'A sample post',
    occurred_at: '2026-01-01T00:00:00.000Z',
    counts: { reactions: 1, comments: 0, reposts: 0 },
  },
];

export const PROFILE = {
  name: 'Sample Person',
  headline: 'Sample headline',
  about: null,
  location: null,
  has_photo: true,
  has_banner: false,
  custom_url: true,
  connections: 10,
  followers: 20,
  positions: null,
  skills: null,
  featured_count: null,
  education_count: null,
  recommendations_received: null,
  languages: null,
  certifications_count: null,
} as unknown as CollectedProfile;

export const ANALYSIS: ProfileAnalysis = { catalog_version: 'catalog-1', findings: [], good: 0, optimize: 0, unknown: 0, captured_at: NOW, revision: 'rev-1' };

/** A person's item's writes: its evidence, its activity and its analysis. */
export function personWrites(db: Kysely<Database>, when: RawBuilder<boolean>): OperationNodeSource[] {
  const base = { reportId: REPORT_ID, profileId: PROFILE_ID, itemId: ITEM_ID };
  return [
    ...evidenceWrites(db, { ...base, images: IMAGES }, NOW, when).writes,
    ...activityWrites(db, { ...base, events: EVENTS, capturedAt: NOW }, NOW, new Map(), when).writes,
    ...analysisWrites(db, { ...base, profile: PROFILE }, ANALYSIS, analysisChange(REPORT_ID, undefined, ANALYSIS, NOW), when),
  ];
}

/** The company page's item's writes: its evidence, its activity and its context. */
export function companyWrites(db: Kysely<Database>, when: RawBuilder<boolean>): OperationNodeSource[] {
  const base = { reportId: REPORT_ID, profileId: null, itemId: ITEM_ID };
  return [
    ...evidenceWrites(db, { ...base, images: IMAGES }, NOW, when).writes,
    ...activityWrites(db, { ...base, events: EVENTS, capturedAt: NOW }, NOW, new Map(), when).writes,
    companyWrite(
      db,
      {
        reportId: REPORT_ID,
        itemId: ITEM_ID,
        company: { name: 'Sample Company', tagline: null, industry: null, follower_count: 5, website: null },
        capturedAt: NOW,
      },
      NOW,
      when,
    ),
  ];
}

/** Runs each write on its own (a query builder or raw SQL). */
export async function runWrites(db: Kysely<Database>, writes: readonly OperationNodeSource[]): Promise<void> {
  for (const write of writes) await (write as unknown as { execute(db: Kysely<Database>): Promise<unknown> }).execute(db);
}
