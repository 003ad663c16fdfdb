/**
 * Small pure helpers the check catalog is built from: text matching against
 * the company name, month parsing for positions, count validation and the
 * "certain / uncertain" counting that activity checks share.
 *
 * No I/O and no clock: every time-dependent helper takes `now`.
 */
import type { ActivityEventType, CollectedActivityEvent, CollectedPosition } from '../collected.js';
import { isRfc3339 } from '../rfc3339.js';

export type Outcome = 'good' | 'optimize' | 'unknown';
export type Observed = string | number | boolean | null;
export interface CheckResult {
  readonly outcome: Outcome;
  readonly observed: Observed;
}

export const UNKNOWN: CheckResult = Object.freeze({ outcome: 'unknown', observed: null });

export function verdict(isGood: boolean, observed: Observed): CheckResult {
  return { outcome: isGood ? 'good' : 'optimize', observed };
}

// ---------------------------------------------------------------- text

export function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** Length in code points of the trimmed text (what a reader perceives as characters). */
export function visibleLength(text: string): number {
  return Array.from(text.trim()).length;
}

function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

function isWordCharAt(chars: string[], index: number): boolean {
  const c = chars[index];
  return c !== undefined && WORD_CHAR.test(c);
}

/** Legal-form suffixes dropped to get the name people actually write ("Acme Inc." → "Acme"). */
const LEGAL_SUFFIX =
  /[\s,]+(inc|incorporated|llc|l\.l\.c|ltd|limited|gmbh|ag|sa|s\.a|sas|bv|b\.v|nv|plc|corp|corporation|co|company|oy|ab|as|srl|spa|pty|kg)\.?$/u;

/** The company name and, when it has a legal-form suffix, the name without it. */
export function companyNameVariants(name: string): string[] {
  const full = normalizeText(name);
  if (full === '') return [];
  const variants = [full];
  const short = full.replace(LEGAL_SUFFIX, '').trim();
  if (short !== full && Array.from(short).length >= 2) variants.push(short);
  return variants;
}

/**
 * True when `text` contains the company name (or its suffix-less variant) as a
 * whole word sequence, case-insensitively: "Acme" matches "PM at ACME" but not
 * "Acmeville".
 */
export function mentionsCompany(text: string, companyName: string): boolean {
  const haystack = Array.from(normalizeText(text));
  for (const variant of companyNameVariants(companyName)) {
    const needle = Array.from(variant);
    for (let i = 0; i + needle.length <= haystack.length; i++) {
      let equal = true;
      for (let j = 0; j < needle.length; j++) {
        if (haystack[i + j] !== needle[j]) {
          equal = false;
          break;
        }
      }
      if (!equal) continue;
      if (WORD_CHAR.test(needle[0]) && isWordCharAt(haystack, i - 1)) continue;
      if (WORD_CHAR.test(needle[needle.length - 1]) && isWordCharAt(haystack, i + needle.length)) continue;
      return true;
    }
  }
  return false;
}

/** Host of a domain given as a hostname or an http(s) URL, without a leading `www.`; null if none. */
export function hostOf(domainOrUrl: string): string | null {
  const trimmed = domainOrUrl.trim();
  if (trimmed === '') return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//iu.test(trimmed) ? trimmed : `https://${trimmed}`);
    const host = url.hostname.toLowerCase().replace(/^www\./u, '');
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- counts

export type CountState = { kind: 'missing' } | { kind: 'conflicting' } | { kind: 'value'; value: number };

/** A count is a non-negative integer; null is missing; anything else contradicts itself. */
export function readCount(value: number | null): CountState {
  if (value === null) return { kind: 'missing' };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return { kind: 'conflicting' };
  return { kind: 'value', value };
}

/** good when the count is at least `minimum`; unknown when missing or impossible (negative, fractional). */
export function countAtLeast(value: number | null, minimum: number): CheckResult {
  const count = readCount(value);
  if (count.kind !== 'value') return UNKNOWN;
  return verdict(count.value >= minimum, count.value);
}

// ---------------------------------------------------------------- positions

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/u;

/** Months since year 0 for 'YYYY-MM', or undefined when the text is not such a month. */
export function parseMonth(text: string): number | undefined {
  const match = MONTH.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 12 + Number(match[2]) - 1;
}

export function monthOf(date: Date): number {
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

export type PositionsState =
  { kind: 'missing' } | { kind: 'conflicting' } | { kind: 'value'; all: readonly CollectedPosition[]; current: readonly CollectedPosition[] };

/**
 * Positions with their current ones (no end date). Dates that contradict each
 * other or the observation time make the list conflicting: a month that is not
 * 'YYYY-MM', a start after the end, or a start or end after the month of `now`
 * (a role "ending" in the future claims to be current while carrying an end date).
 */
export function readPositions(positions: CollectedPosition[] | null, now: Date): PositionsState {
  if (positions === null) return { kind: 'missing' };
  const nowMonth = monthOf(now);
  for (const position of positions) {
    const start = position.start === null ? null : parseMonth(position.start);
    const end = position.end === null ? null : parseMonth(position.end);
    if (start === undefined || end === undefined) return { kind: 'conflicting' };
    if (start !== null && start > nowMonth) return { kind: 'conflicting' };
    if (end !== null && end > nowMonth) return { kind: 'conflicting' };
    if (start !== null && end !== null && start > end) return { kind: 'conflicting' };
  }
  return { kind: 'value', all: positions, current: positions.filter((p) => p.end === null) };
}

// ---------------------------------------------------------------- activity

const DAY_MS = 86_400_000;
/** Source clocks and time zones: an event up to a day "ahead" of now is still taken as now. */
const FUTURE_TOLERANCE_MS = DAY_MS;

/** Epoch ms of an event, or null when it has no usable date (missing, malformed or in the future). */
export function eventTime(event: CollectedActivityEvent, now: Date): number | null {
  if (event.occurred_at === null || !isRfc3339(event.occurred_at)) return null;
  const ms = Date.parse(event.occurred_at);
  if (!Number.isFinite(ms) || ms > now.getTime() + FUTURE_TOLERANCE_MS) return null;
  return ms;
}

export type Match = 'yes' | 'no' | 'maybe';

export interface EventCriteria {
  /** Event types that count. Events of type 'unknown' might be any of them. */
  readonly types: readonly ActivityEventType[];
  /** Whether the event's content qualifies; every event of a counted type does when omitted. */
  readonly content?: (event: CollectedActivityEvent) => Match;
}

/**
 * Counts the person's own events (company-page actors never count, 2.9 rule 2)
 * within the last `days` days that certainly match, and those that might
 * (unknown type, no usable date, or content that cannot be judged). The result
 * is good when the certain count reaches `minimum`, optimize when even all
 * uncertain events together could not reach it, and unknown in between.
 */
export function countRecentEvents(events: readonly CollectedActivityEvent[], now: Date, days: number, minimum: number, criteria: EventCriteria): CheckResult {
  const since = now.getTime() - days * DAY_MS;
  let certain = 0;
  let uncertain = 0;
  for (const event of events) {
    if (event.actor.kind !== 'person') continue;
    const typeKnown = event.event_type !== 'unknown';
    if (typeKnown && !criteria.types.includes(event.event_type)) continue;
    const content = criteria.content ? criteria.content(event) : 'yes';
    if (content === 'no') continue;
    const at = eventTime(event, now);
    if (at !== null && at < since) continue;
    if (at === null || !typeKnown || content === 'maybe') uncertain++;
    else certain++;
  }
  if (certain >= minimum) return { outcome: 'good', observed: certain };
  if (certain + uncertain < minimum) return { outcome: 'optimize', observed: certain };
  return UNKNOWN;
}
