/**
 * The collector interface: fetch the raw, observable data of one scan item
 * (one person's profile or one company page) from somewhere.
 *
 * Collectors do I/O and nothing else: they do not write to the database,
 * evaluate checks or store media. The scan item handler does that with what
 * a collector returns. Implementations: the deterministic simulator (test
 * keys, demos) and the HTTP provider collector (live keys).
 */

export type ItemKind = 'person' | 'company_page';
export type ScanMode = 'full_profile' | 'activity';

export interface CollectRequest {
  kind: ItemKind;
  mode: ScanMode;
  /** Normalized pronet_url of the person, or the report's company page URL. */
  url: string;
  /** 1-based attempt number (retries increase it). */
  attempt: number;
  /** Aborted when the item's time budget is over or the worker shuts down. */
  signal: AbortSignal;
}

export interface CollectedPosition {
  title: string;
  company: string | null;
  /** 'YYYY-MM' or null when unknown. */
  start: string | null;
  /** 'YYYY-MM', or null for a current position. */
  end: string | null;
  description: string | null;
}

/** What a profile page shows. null for any member means "not observed". */
export interface CollectedProfile {
  name: string | null;
  headline: string | null;
  about: string | null;
  location: string | null;
  has_photo: boolean | null;
  has_banner: boolean | null;
  /** true when the profile uses a vanity URL instead of a generated id. */
  custom_url: boolean | null;
  connections: number | null;
  followers: number | null;
  positions: CollectedPosition[] | null;
  skills: string[] | null;
  featured_count: number | null;
  education_count: number | null;
  recommendations_received: number | null;
  languages: string[] | null;
  certifications_count: number | null;
}

export type ActivityEventType = 'post' | 'repost' | 'comment' | 'reaction' | 'unknown';

export interface CollectedActivityEvent {
  /** Stable identifier of the event at the source; used for idempotent upserts. */
  external_id: string;
  event_type: ActivityEventType;
  actor: { kind: 'person' | 'company_page'; url: string; name: string | null };
  /** Link to the post/comment at the source, when known. */
  source_url: string | null;
  text: string | null;
  /** RFC 3339 instant, or null when the source gives no date. */
  occurred_at: string | null;
  /** null means unknown, never zero. */
  counts: { reactions: number | null; comments: number | null; reposts: number | null };
}

export interface CollectedCompany {
  name: string | null;
  tagline: string | null;
  industry: string | null;
  follower_count: number | null;
  website: string | null;
}

export type MediaType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface Screenshot {
  /** Which part of the page it shows: 'top_card', 'about', 'experience', 'skills', 'activity', 'company'. */
  section: string;
  media_type: MediaType;
  bytes: Buffer;
}

export type CollectResult =
  | {
      outcome: 'ok';
      /** Person items in either mode; null for company pages. */
      profile: CollectedProfile | null;
      /** Activity mode: the events seen ([] = verified empty). null = not collected. */
      activity: CollectedActivityEvent[] | null;
      /** Company-page items only. */
      company: CollectedCompany | null;
      screenshots: Screenshot[];
      /** Sections the collector could not read; non-empty makes the item a warning. */
      missing_sections: string[];
      /** RFC 3339 instant of the observation at the source. */
      captured_at: string;
    }
  | { outcome: 'inaccessible'; reason: string };

/**
 * A failed attempt. `retryable: false` ends the item at once (failed), true
 * lets the queue retry it with backoff until the attempt budget is spent.
 * `reason` is a short, secret-free text stored on the item.
 *
 * `deferMs` (only with `retryable: true`) asks to DEFER the item instead:
 * try it again no earlier than `deferMs` from now, and do not count this
 * attempt (e.g. the provider answered 429 with Retry-After, or the attempt
 * never reached the provider).
 */
export class CollectorError extends Error {
  readonly retryable: boolean;
  readonly reason: string;
  /** Positive integer of milliseconds when the item is to be deferred; undefined otherwise. */
  readonly deferMs: number | undefined;
  constructor(reason: string, options: { retryable: boolean; cause?: unknown; deferMs?: number }) {
    super(reason, { cause: options.cause });
    this.name = 'CollectorError';
    this.reason = reason;
    this.retryable = options.retryable;
    if (options.deferMs !== undefined && (!options.retryable || !Number.isSafeInteger(options.deferMs) || options.deferMs < 1)) {
      throw new TypeError('CollectorError deferMs must be a positive integer of milliseconds, with retryable: true');
    }
    this.deferMs = options.deferMs;
  }
}

export interface Collector {
  readonly name: string;
  collect(request: CollectRequest): Promise<CollectResult>;
}
