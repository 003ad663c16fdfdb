/**
 * Findings records as ready JSON text. The `analysis`
 * member of a person's findings record is most of the record and depends only
 * on the stored analysis, so it is rendered once, when the findings are
 * stored (`profile_analyses.analysis_json`), and a findings page concatenates
 * the stored texts instead of rebuilding and serializing every record.
 *
 * What it trades: a findings page costs a byte copy per record instead of
 * building and serializing every check object (a findings page is mostly
 * serialization), for a second copy of it per analysis stored and a format version
 * (ANALYSIS_TEXT_FORMAT) that must change with the record's layout. One path
 * for the fast case and the fallback: both produce findingsRecord()'s JSON (a
 * stored text of another version is not used; the record is then built from
 * the stored findings), and the tests compare them byte for byte.
 *
 * Two parts of it are not known when the findings are stored and are filled
 * in per read, so the stored text is a template with placeholders:
 * - U+0001 where each check's `source_url` starts: the attachment's profile
 *   URL (activity checks add a suffix after it);
 * - U+0002 where each evidence image's `url` and `preview_url` start: the
 *   service's public base URL (configuration), before their `/api/v1/…` path;
 * - U+0003 and two hex digits for each byte of a non-ASCII character's UTF-8
 *   form, so that the template is ASCII: the database driver decodes it into a
 *   one-byte string, whose bytes are the template's (a single non-ASCII
 *   character, e.g. "…" in a recommendation, would make a two-byte string that
 *   costs far more to decode and encode again than the rest of the read).
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
  layout: 3,
  checks: CHECKS.map((c) => [c.id, c.title]),
  categories: CATEGORIES.map((c) => [c.key, c.id]),
});

/** The path of an evidence image, after the base URL (use-cases/present.ts evidenceUrl). */
export function evidencePath(reportId: string, imageId: string, variant?: 'preview'): string {
  const path = `/api/v1/reports/${reportId}/evidence/${imageId}`;
  return variant === 'preview' ? `${path}?variant=preview` : path;
}

const PROFILE_URL_HERE = '\u0001';
const BASE_URL_HERE = '\u0002';
const PROFILE_URL_BYTE = 1;
const BASE_URL_BYTE = 2;
const UTF8_BYTE = 3;

/** The stored template of a record's `analysis` member. */
export function analysisTemplate(reportId: string, analysis: StoredAnalysis): string {
  const record = findingsRecord(
    { profileId: '', person: { pronet_url: '', name: null, title: null, headline: null }, analysis, full: null },
    (imageId, variant) => evidencePath(reportId, imageId, variant),
  );
  const json = JSON.stringify(record.analysis)
    .split('"source_url":"')
    .join(`"source_url":"${PROFILE_URL_HERE}`)
    .split('"url":"/')
    .join(`"url":"${BASE_URL_HERE}/`)
    .split('"preview_url":"/')
    .join(`"preview_url":"${BASE_URL_HERE}/`);
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at NUL
  return /^[\x00-\x7f]*$/.test(json) ? json : asciiOnly(json);
}

/** Each byte of every non-ASCII character's UTF-8 form as U+0003 and two hex digits. */
function asciiOnly(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte < 0x80 ? String.fromCharCode(byte) : `\u0003${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** A JSON string's content, without its quotes. */
const jsonContent = (value: string) => JSON.stringify(value).slice(1, -1);

/** The `analysis` member's JSON for a person with profile URL `pronetUrl`, served at `baseUrl`. */
export function fillAnalysis(template: string, pronetUrl: string, baseUrl: string): string {
  return fillAnalysisBytes(Buffer.from(template, 'latin1'), Buffer.from(jsonContent(pronetUrl)), Buffer.from(jsonContent(baseUrl))).toString('utf8');
}

/** The length in bytes of fillAnalysisBytes(template, url, base). */
export function filledLength(template: Buffer, url: Buffer, base: Buffer): number {
  return (
    template.length +
    countOf(template, PROFILE_URL_BYTE) * (url.length - 1) +
    countOf(template, BASE_URL_BYTE) * (base.length - 1) -
    countOf(template, UTF8_BYTE) * 2
  );
}

/**
 * fillAnalysis() on the template's UTF-8 bytes, written into `out` at `at`
 * (which has room for filledLength()), without decoding the text into a
 * string; returns the bytes written. `url` and `base` are the JSON string
 * contents (jsonStringContent) as UTF-8.
 */
export function fillAnalysisInto(template: Buffer, url: Buffer, base: Buffer, out: Buffer, at: number): number {
  const next = [-1, template.indexOf(PROFILE_URL_BYTE), template.indexOf(BASE_URL_BYTE), template.indexOf(UTF8_BYTE)];
  let from = 0;
  let to = at;
  for (;;) {
    let kind = 0;
    for (let k = 1; k <= 3; k++) if (next[k] >= 0 && (kind === 0 || next[k] < next[kind])) kind = k;
    if (kind === 0) break;
    const hole = next[kind];
    to += template.copy(out, to, from, hole);
    if (kind === UTF8_BYTE) {
      out[to++] = parseInt(template.toString('latin1', hole + 1, hole + 3), 16);
      from = hole + 3;
    } else {
      to += (kind === PROFILE_URL_BYTE ? url : base).copy(out, to);
      from = hole + 1;
    }
    next[kind] = template.indexOf(kind, from);
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
