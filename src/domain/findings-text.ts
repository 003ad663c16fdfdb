/**
 * Findings records as ready JSON text (issue 9, item 6). The `analysis`
 * member of a person's findings record is ~12 KB (29 checks) and depends only
 * on the stored analysis, so it is rendered once, when the findings are
 * stored (`profile_analyses.analysis_json`), and a findings page concatenates
 * the stored texts instead of rebuilding and serializing every record.
 *
 * Two parts of it are not known when the findings are stored and are filled
 * in per read, so the stored text is a template:
 * - each check's `source_url` is the attachment's profile URL (plus a suffix
 *   for activity checks): stored as the suffix alone;
 * - each evidence image's `url` and `preview_url` start with the service's
 *   public base URL (configuration): stored as the path (`/api/v1/…`).
 * JSON text has a bare `"` only around strings (a quote inside a string is
 * always escaped), so `"source_url":"`, `"url":"` and `"preview_url":"`
 * occur in the template exactly where those members start, and filling in
 * is a plain text substitution.
 *
 * The result is byte for byte the JSON of findingsRecord() (analysis-records.ts)
 * in the order of the response schema; the findings tests compare them.
 */
import { CATEGORIES, CHECKS } from './checks/catalog.js';
import { profileRecordRevision, unanalyzedReason, type LatestItem } from './analysis-aggregate.js';
import type { ItemStatus } from './scan-status.js';
import { findingsRecord, type StoredAnalysis } from './analysis-records.js';
import { revisionOf } from './revision.js';

/**
 * The version of the template: its layout and what it takes from the code
 * (check titles, category ids). A stored text of another version is not
 * used; the record is then built from the stored findings.
 */
export const ANALYSIS_TEXT_FORMAT = revisionOf({
  layout: 1,
  checks: CHECKS.map((c) => [c.id, c.title]),
  categories: CATEGORIES.map((c) => [c.key, c.id]),
});

/** The path of an evidence image, as `evidenceUrl` (http/routes/evidence.ts) builds it after the base URL. */
export function evidencePath(reportId: string, imageId: string, variant?: 'preview'): string {
  const path = `/api/v1/reports/${reportId}/evidence/${imageId}`;
  return variant === 'preview' ? `${path}?variant=preview` : path;
}

/** The stored template of a record's `analysis` member. */
export function analysisTemplate(reportId: string, analysis: StoredAnalysis): string {
  const record = findingsRecord(
    { profileId: '', person: { pronet_url: '', name: null, title: null, headline: null }, analysis, full: null },
    (imageId, variant) => evidencePath(reportId, imageId, variant),
  );
  return JSON.stringify(record.analysis);
}

/** A JSON string's content, without its quotes. */
const jsonContent = (value: string) => JSON.stringify(value).slice(1, -1);

/** The `analysis` member's JSON for a person with profile URL `pronetUrl`, served at `baseUrl`. */
export function fillAnalysis(template: string, pronetUrl: string, baseUrl: string): string {
  const url = jsonContent(pronetUrl);
  const base = jsonContent(baseUrl);
  let text = template.split('"source_url":"').join(`"source_url":"${url}`);
  if (text.includes('"url":"/')) {
    text = text.split('"url":"/').join(`"url":"${base}/`).split('"preview_url":"/').join(`"preview_url":"${base}/`);
  }
  return text;
}

export interface RecordParts {
  profileId: string;
  person: { pronet_url: string; name: string | null; title: string | null; headline: string | null };
  /** The stored analysis revision, null when the person has no analysis. */
  analysisRevision: string | null;
  /** The `analysis` member's JSON (fillAnalysis), or 'null'. */
  analysisJson: string;
  full: LatestItem | null;
}

/** A findings record's JSON: findingsRecord()'s members in schema order around the analysis text. */
export function recordText(parts: RecordParts): string {
  const analyzed = parts.analysisRevision !== null;
  const revision = profileRecordRevision({
    profileId: parts.profileId,
    person: parts.person,
    analysis: analyzed ? { revision: parts.analysisRevision!, outcomes: {} } : null,
    full: parts.full,
  });
  const p = parts.person;
  return (
    `{"profile_id":${JSON.stringify(parts.profileId)},"pronet_url":${JSON.stringify(p.pronet_url)},` +
    `"name":${JSON.stringify(p.name)},"title":${JSON.stringify(p.title)},"headline":${JSON.stringify(p.headline)},` +
    `"revision":${JSON.stringify(revision)},"analysis":${parts.analysisJson},` +
    `"reason":${JSON.stringify(analyzed ? null : unanalyzedReason(parts.full))}}`
  );
}

const ITEM_STATUSES = Object.keys({
  pending: true,
  running: true,
  succeeded: true,
  failed: true,
  inaccessible: true,
  cancelled: true,
} satisfies Record<ItemStatus, true>) as ItemStatus[];

/**
 * unanalyzedReason() as data, for a read that assembles records in SQL:
 * the reason for each status of the latest full_profile item, and for none.
 * (The reason does not depend on the item's warning.)
 */
export const REASON_BY_FULL_STATUS: { none: string; byStatus: [ItemStatus, string][] } = {
  none: unanalyzedReason(null),
  byStatus: ITEM_STATUSES.map((status) => [status, unanalyzedReason({ status, warning: false })]),
};

/** A JSON string's content without its quotes (what fillAnalysis inserts), e.g. for a base URL passed to SQL. */
export function jsonStringContent(value: string): string {
  return jsonContent(value);
}
