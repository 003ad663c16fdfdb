/**
 * What a collector observed of one scan item, as plain data: a person's
 * profile, activity events, a company page, screenshots and the images the
 * record links to; and the evidence made of them. Every collector
 * (simulator, HTTP provider) returns these shapes; the check catalog, the
 * aggregates and the store read them. No I/O, no behaviour.
 */
import type { ScanMode } from './scan-status.js';

export type { ScanMode };
export type ItemKind = 'person' | 'company_page';

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
  /**
   * The members above that the source withholds from public view (e.g.
   * `positions` and `education_count` since LinkedIn's 2025 data policy
   * change): they are null because they could not be observed, not because
   * the person left them empty. Absent or [] when nothing was withheld.
   */
  restricted?: string[];
}

/**
 * Why a person's activity was not observed: the source delivered nothing for
 * them ('not_delivered'), it delivered records that could not be attributed to
 * them ('unattributable'), or the call for them failed ('failed'). Never advice:
 * the activity checks are unknown, and the summary's limitations say why.
 */
export type ActivityGap = 'not_delivered' | 'unattributable' | 'failed';

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
      /**
       * Activity mode: the events seen. [] only when the source positively observed
       * that there are none (a completed discovery that returned the person's own
       * empty result). null = not observed; in activity mode `activity_gap` says why.
       */
      activity: CollectedActivityEvent[] | null;
      /** Activity mode with `activity` null: why nothing was observed. Absent: not asked for. */
      activity_gap?: ActivityGap;
      /** Company-page items only. */
      company: CollectedCompany | null;
      screenshots: Screenshot[];
      /**
       * Images the source links to (a profile photo, a banner, a company logo), by
       * section: downloaded as evidence by the scanning layer's safe fetcher, never by
       * the collector. Absent or [] when there are none.
       */
      linked_images?: LinkedImage[];
      /** Sections the collector could not read; non-empty makes the item a warning. */
      missing_sections: string[];
      /** RFC 3339 instant of the observation at the source. */
      captured_at: string;
      /** Records the data provider bills for this item (counted per workspace); absent: none. */
      billed_records?: number;
    }
  | { outcome: 'inaccessible'; reason: string };

/** An image a collected record links to, by the page section it stands for. */
export interface LinkedImage {
  /** 'top_card' (photo, banner), 'company' (logo) …: the sections of Screenshot. */
  section: string;
  /** Absolute https URL, as the provider gave it. */
  url: string;
}

/** Where a stored image's bytes are (content-addressed) and what they are. */
export interface StoredImage {
  sha256: string;
  size: number;
  media_type: MediaType;
  width: number;
  height: number;
}

/**
 * Where an evidence image comes from: `captured` bytes came from the source
 * (a collector's screenshot, or an image the record links to, downloaded by
 * the safe fetcher); `rendered` is an evidence card the service drew from the
 * observed data at capture time.
 */
export type EvidenceOrigin = 'captured' | 'rendered';

export interface PreparedEvidence {
  original: StoredImage;
  /** A WebP at most PREVIEW_MAX_WIDTH wide; equal to `original` when that is a narrow WebP already. */
  preview: StoredImage;
}
