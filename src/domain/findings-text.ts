/**
 * Findings records as ready JSON text (issue 9, item 6). The `analysis`
 * member of a person's findings record is ~12 KB (29 checks) and depends only
 * on the stored analysis, so it is rendered once, when the findings are
 * stored (`profile_analyses.analysis_json`), and a findings page concatenates
 * the stored texts instead of rebuilding and serializing every record.
 *
 * Two parts of it are not known when the findings are stored and are filled
 * in per read, so the stored text is a template with two placeholders:
 * - U+0001 where each check's `source_url` starts: the attachment's profile
 *   URL (activity checks add a suffix after it);
 * - U+0002 where each evidence image's `url` and `preview_url` start: the
 *   service's public base URL (configuration), before their `/api/v1/…` path.
 * JSON text never contains a raw control character (JSON.stringify escapes
 * them inside strings), so the placeholders cannot be confused with content,
 * and filling in is a byte search (memchr) and copy. The placeholders are put
 * in once, when the template is rendered: there, `"source_url":"`,
 * `"url":"/` and `"preview_url":"/` occur exactly where those members start,
 * because JSON text has a bare `"` only around strings.
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
  layout: 2,
  checks: CHECKS.map((c) => [c.id, c.title]),
  categories: CATEGORIES.map((c) => [c.key, c.id]),
});

/** The path of an evidence image, as `evidenceUrl` (http/routes/evidence.ts) builds it after the base URL. */
export function evidencePath(reportId: string, imageId: string, variant?: 'preview'): string {
  const path = `/api/v1/reports/${reportId}/evidence/${imageId}`;
  return variant === 'preview' ? `${path}?variant=preview` : path;
}

const PROFILE_URL_HERE = '\u0001';
const BASE_URL_HERE = '\u0002';

/** The stored template of a record's `analysis` member. */
export function analysisTemplate(reportId: string, analysis: StoredAnalysis): string {
  const record = findingsRecord(
    { profileId: '', person: { pronet_url: '', name: null, title: null, headline: null }, analysis, full: null },
    (imageId, variant) => evidencePath(reportId, imageId, variant),
  );
  return JSON.stringify(record.analysis)
    .split('"source_url":"')
    .join(`"source_url":"${PROFILE_URL_HERE}`)
    .split('"url":"/')
    .join(`"url":"${BASE_URL_HERE}/`)
    .split('"preview_url":"/')
    .join(`"preview_url":"${BASE_URL_HERE}/`);
}

/** A JSON string's content, without its quotes. */
const jsonContent = (value: string) => JSON.stringify(value).slice(1, -1);

/** The `analysis` member's JSON for a person with profile URL `pronetUrl`, served at `baseUrl`. */
export function fillAnalysis(template: string, pronetUrl: string, baseUrl: string): string {
  return template.split(PROFILE_URL_HERE).join(jsonContent(pronetUrl)).split(BASE_URL_HERE).join(jsonContent(baseUrl));
}

/** The length in bytes of fillAnalysisBytes(template, url, base). */
export function filledLength(template: Buffer, url: Buffer, base: Buffer): number {
  return template.length + countOf(template, 1) * (url.length - 1) + countOf(template, 2) * (base.length - 1);
}

/**
 * fillAnalysis() on the template's UTF-8 bytes, written into `out` at `at`
 * (which has room for filledLength()), without decoding the text into a
 * string; returns the bytes written. `url` and `base` are the JSON string
 * contents (jsonStringContent) as UTF-8.
 */
export function fillAnalysisInto(template: Buffer, url: Buffer, base: Buffer, out: Buffer, at: number): number {
  let nextUrl = template.indexOf(1);
  let nextBase = template.indexOf(2);
  let from = 0;
  let to = at;
  while (nextUrl >= 0 || nextBase >= 0) {
    const isUrl = nextBase < 0 || (nextUrl >= 0 && nextUrl < nextBase);
    const hole = isUrl ? nextUrl : nextBase;
    to += template.copy(out, to, from, hole);
    to += (isUrl ? url : base).copy(out, to);
    from = hole + 1;
    if (isUrl) nextUrl = template.indexOf(1, from);
    else nextBase = template.indexOf(2, from);
  }
  to += template.copy(out, to, from);
  return to - at;
}

/** fillAnalysisInto() into a buffer of its own. */
export function fillAnalysisBytes(template: Buffer, url: Buffer, base: Buffer): Buffer {
  const out = Buffer.allocUnsafe(filledLength(template, url, base));
  fillAnalysisInto(template, url, base, out, 0);
  return out;
}

function countOf(bytes: Buffer, byte: number): number {
  let n = 0;
  for (let at = bytes.indexOf(byte); at >= 0; at = bytes.indexOf(byte, at + 1)) n++;
  return n;
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
