/**
 * The provider's answer (docs/collectors.md, "Provider API contract"): its
 * TypeBox schema, compiled once by Ajv, and `parseProviderAnswer`, which
 * checks a parsed JSON body against it and maps it to a `CollectResult`.
 *
 * The schema says the shape: every member present, types, `null` where
 * allowed, lengths, enums, RFC 3339 instants, http(s) URLs, `YYYY-MM` months,
 * distinct snake_case missing sections. The code below it says what JSON
 * Schema cannot: which member belongs to which item kind, unique external
 * ids, a position's end not before its start, and screenshots whose base64 is
 * canonical and whose bytes carry the signature of their media type.
 *
 * Activity goes through the domain's rule (domain/activity-observation.ts):
 * only a list is an observation (`[]`: positively none); `activity: null` in
 * activity mode is not observed, with the answer's `activity_gap` or
 * 'not_delivered', never an empty list.
 *
 * Unknown members are ignored (additive provider changes stay compatible) and
 * never copied: Ajv removes them (`removeAdditional: 'all'`) from the freshly
 * parsed body before it is mapped.
 *
 * A broken rule throws `CollectorError('provider returned a malformed
 * answer', { retryable: true })`; its cause keeps the JSON path of the first
 * violation (member names and indexes, never values).
 */

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import {
  CollectorError,
  type ActivityEventType,
  type CollectResult,
  type CollectedActivityEvent,
  type CollectedCompany,
  type CollectedPosition,
  type CollectedProfile,
  type ItemKind,
  type MediaType,
  type ScanMode,
  type Screenshot,
} from './collector.js';
import { isRfc3339 } from '../../domain/rfc3339.js';
import { ACTIVITY_GAPS, withActivityObservation } from '../../domain/activity-observation.js';

/** One decoded screenshot. */
export const MAX_SCREENSHOT_BYTES = 10 * 1024 * 1024;

export const MALFORMED_ANSWER = 'provider returned a malformed answer';

/** Carries the JSON path of the first violation; paths name members, never values. */
class ShapeError extends Error {}

/** The retryable "malformed answer" error; `detail` (no values) goes to its cause. */
export function malformedAnswer(detail: string): CollectorError {
  return new CollectorError(MALFORMED_ANSWER, { retryable: true, cause: new ShapeError(detail) });
}

// ---------------------------------------------------------------------------
// Schema

const EVENT_TYPES: readonly ActivityEventType[] = ['post', 'repost', 'comment', 'reaction', 'unknown'];
const ITEM_KINDS: readonly ItemKind[] = ['person', 'company_page'];
const SECTIONS = ['top_card', 'about', 'experience', 'skills', 'activity', 'company'] as const;
const MEDIA_TYPES: readonly MediaType[] = ['image/png', 'image/jpeg', 'image/webp'];

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const OneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
/** Any text member; lengths count UTF-16 code units (String.length), see the Ajv options. */
const Text = (maxLength = 100_000) => Type.String({ maxLength });
/** Not only white space (the same set as String.prototype.trim). */
const NonBlank = (maxLength: number) => Type.String({ maxLength, pattern: '\\S' });
const Count = Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }));
const Flag = Nullable(Type.Boolean());
const TextList = Nullable(Type.Array(Text()));
const YearMonth = Nullable(Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' }));
const Instant = Type.String({ format: 'rfc3339' });
const HttpUrl = Type.String({ maxLength: 2048, format: 'http-url' });

const Position = Type.Object({
  title: Text(),
  company: Nullable(Text()),
  start: YearMonth,
  end: YearMonth,
  description: Nullable(Text()),
});

const Profile = Type.Object({
  name: Nullable(Text()),
  headline: Nullable(Text()),
  about: Nullable(Text()),
  location: Nullable(Text()),
  has_photo: Flag,
  has_banner: Flag,
  custom_url: Flag,
  connections: Count,
  followers: Count,
  positions: Nullable(Type.Array(Position)),
  skills: TextList,
  featured_count: Count,
  education_count: Count,
  recommendations_received: Count,
  languages: TextList,
  certifications_count: Count,
});

const ActivityEvent = Type.Object({
  // Keys idempotent upserts: unique within the answer (checked below).
  external_id: NonBlank(512),
  event_type: OneOf(EVENT_TYPES),
  actor: Type.Object({ kind: OneOf(ITEM_KINDS), url: HttpUrl, name: Nullable(Text()) }),
  source_url: Nullable(HttpUrl),
  text: Nullable(Text()),
  occurred_at: Nullable(Instant),
  counts: Type.Object({ reactions: Count, comments: Count, reposts: Count }),
});

const Company = Type.Object({
  name: Nullable(Text()),
  tagline: Nullable(Text()),
  industry: Nullable(Text()),
  follower_count: Count,
  website: Nullable(Text()),
});

const ScreenshotAnswer = Type.Object({
  section: OneOf(SECTIONS),
  media_type: OneOf(MEDIA_TYPES),
  // Canonical base64, its size and its signature are checked below.
  data_base64: Type.String({ minLength: 1 }),
});

export const CollectedAnswer = Type.Object({
  status: Type.Literal('ok'),
  captured_at: Instant,
  profile: Nullable(Profile),
  activity: Nullable(Type.Array(ActivityEvent)),
  // Why `activity` is null: optional, and only beside a null activity (checked below).
  activity_gap: Type.Optional(OneOf(ACTIVITY_GAPS)),
  company: Nullable(Company),
  missing_sections: Type.Array(Type.String({ maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' }), { uniqueItems: true }),
  screenshots: Type.Array(ScreenshotAnswer),
});

export const InaccessibleAnswer = Type.Object({
  status: Type.Literal('inaccessible'),
  reason: NonBlank(500),
});

// The schema and the collected-data types of collector.ts say the same thing.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameTypes: [
  Same<Static<typeof Position>, CollectedPosition>,
  Same<Static<typeof Profile>, CollectedProfile>,
  Same<Static<typeof ActivityEvent>, CollectedActivityEvent>,
  Same<Static<typeof Company>, CollectedCompany>,
] = [true, true, true, true];
void sameTypes;

const ajv = new Ajv({
  strict: true,
  allErrors: false,
  removeAdditional: 'all',
  // maxLength/minLength count String.length (UTF-16 code units), as the contract's limits always
  // have; Ajv's default counts code points. The option is marked deprecated, so Ajv's logger (which
  // would only print that notice: strict mode throws at compile time) is off.
  unicode: false,
  logger: false,
});
ajv.addFormat('rfc3339', { type: 'string', validate: isRfc3339 });
ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });

const validateCollected = ajv.compile<Static<typeof CollectedAnswer>>(CollectedAnswer);
const validateInaccessible = ajv.compile<Static<typeof InaccessibleAnswer>>(InaccessibleAnswer);

// ---------------------------------------------------------------------------
// Parsing

/** Validates a parsed JSON body for an item of `kind` collected in `mode` and maps it; throws a malformed-answer CollectorError. */
export function parseProviderAnswer(json: unknown, kind: ItemKind, mode: ScanMode): CollectResult {
  try {
    return answer(json, kind, mode);
  } catch (err) {
    if (err instanceof ShapeError) throw malformedAnswer(err.message);
    throw err;
  }
}

function fail(path: string): never {
  throw new ShapeError(`invalid ${path}`);
}

function answer(json: unknown, kind: ItemKind, mode: ScanMode): CollectResult {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('$');
  if ((json as { status?: unknown }).status === 'inaccessible') {
    if (!validateInaccessible(json)) fail(violationPath(validateInaccessible.errors));
    // The provider's text is content: only a plain code-like token is passed on.
    const code = /^[a-z][a-z0-9_]{0,63}$/.test(json.reason) ? json.reason : 'inaccessible';
    return { outcome: 'inaccessible', reason: `provider: ${code}` };
  }
  if ((json as { status?: unknown }).status !== 'ok') fail('status');
  if (!validateCollected(json)) fail(violationPath(validateCollected.errors));

  const { profile, activity, activity_gap, company, missing_sections, captured_at } = json;
  // Which member belongs to which item kind is part of the contract.
  if (kind === 'company_page' && profile !== null) fail('profile');
  if (kind === 'person' && company !== null) fail('company');
  profile?.positions?.forEach((p, i) => {
    // 'YYYY-MM' compares correctly as text.
    if (p.start !== null && p.end !== null && p.end < p.start) fail(`profile.positions[${i}].end`);
  });
  if (activity !== null && new Set(activity.map((e) => e.external_id)).size !== activity.length) fail('activity.external_id');
  // A gap says why nothing was observed: beside observed activity it contradicts the answer.
  if (activity !== null && activity_gap !== undefined) fail('activity_gap');
  const screenshots = json.screenshots.map((s, i) => screenshot(s, `screenshots[${i}]`));
  const collected = { outcome: 'ok' as const, profile, activity, company, screenshots, missing_sections, captured_at };
  return withActivityObservation(activity_gap === undefined ? collected : { ...collected, activity_gap }, { kind, mode });
}

function screenshot(s: Static<typeof ScreenshotAnswer>, path: string): Screenshot {
  const data = s.data_base64;
  // Check the size before decoding so an oversized image costs no allocation.
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if ((data.length / 4) * 3 - padding > MAX_SCREENSHOT_BYTES) fail(`${path}.data_base64 size`);
  // Node's decoder skips invalid characters; a canonical round trip proves strict base64.
  const bytes = Buffer.from(data, 'base64');
  if (data.length % 4 !== 0 || bytes.toString('base64') !== data) fail(`${path}.data_base64`);
  if (!hasSignature(bytes, s.media_type)) fail(`${path}.media_type does not match the bytes`);
  return { section: s.section, media_type: s.media_type, bytes };
}

function hasSignature(bytes: Buffer, mediaType: MediaType): boolean {
  switch (mediaType) {
    case 'image/png':
      return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/jpeg':
      return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case 'image/webp':
      return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  }
}

/** `profile.positions[0].start` from Ajv's first error: member names of the schema and indexes only. */
function violationPath(errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return '$';
  const segments = error.instancePath.split('/').slice(1);
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  if (error.keyword === 'required' && typeof missing === 'string') segments.push(missing);
  const path = segments
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((p, s) => (/^[0-9]+$/.test(s) ? `${p}[${s}]` : p === '' ? s : `${p}.${s}`), '');
  return path === '' ? '$' : path;
}

// ---------------------------------------------------------------------------
// Formats

function isHttpUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'http:' || url.protocol === 'https:';
}
