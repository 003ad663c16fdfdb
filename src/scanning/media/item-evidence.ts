/**
 * The evidence of one collected item, whatever its collector: what was
 * captured and what is rendered, through the one evidence preparation.
 *
 * - Captured: the collector's own screenshots, and the images its record
 *   links to (`linked_images`: a photo, a banner, a logo), downloaded here
 *   through the safe fetcher (safe-fetch.ts), never by the collector.
 * - Rendered: an evidence card for each section that has observed data and
 *   no screenshot of its own (evidence-cards/render-cards.ts).
 *
 * Both go through media/evidence.ts (type sniffing, size and pixel limits,
 * the WebP preview, content-hash storage) and are stored with their origin.
 *
 * A failure here never fails the item: an image that cannot be downloaded
 * (refused by the fetcher's rules, unreachable, too large, too slow) or
 * stored (not an image, too many pixels …) is left out, and its section is
 * reported missing as `evidence:<section>`, which makes the item a warning,
 * as unusable collector screenshots always did. The section keeps its card.
 */
import type { CollectResult, EvidenceOrigin, Screenshot } from '../../domain/collected.js';
import type { EvidenceToStore } from '../../store/analysis-repository.js';
import { renderEvidenceCards, type CardSubject } from '../evidence-cards/render-cards.js';
import { EvidenceError, prepareEvidence } from './evidence.js';
import { NO_SHARE, type ImageShare } from './image-work.js';
import type { MediaStore } from './media-store.js';
import { SafeFetchError, type SafeFetcher } from './safe-fetch.js';

/** Linked images downloaded per item at most; any beyond are ignored (a record links one photo, banner or logo per section). */
export const MAX_LINKED_IMAGES = 6;

export interface EvidenceSources {
  /** Downloads linked images; null: none are downloaded, and their sections are reported missing. */
  fetcher: SafeFetcher | null;
  /** Why a linked image was left out (never its URL). */
  log?: (message: string) => void;
}

export interface EvidenceImage extends Screenshot {
  origin: EvidenceOrigin;
}

/** The item's evidence images before preparation, and its missing sections: the collector's, then those whose images could not be had. */
export interface GatheredEvidence {
  images: EvidenceImage[];
  missing: string[];
}

type CollectedOk = Extract<CollectResult, { outcome: 'ok' }>;

/**
 * Downloads the linked images and renders the cards, at once. Done once per
 * collection: the bytes do not change when their preparation is repeated.
 */
export async function gatherEvidence(
  sources: EvidenceSources,
  subject: CardSubject,
  result: CollectedOk,
  share: ImageShare = NO_SHARE,
  signal?: AbortSignal,
): Promise<GatheredEvidence> {
  const [downloaded, cards] = await Promise.all([downloadLinkedImages(sources, result, signal), renderEvidenceCards(subject, result, share)]);
  return {
    images: [
      ...result.screenshots.map((shot) => ({ ...shot, origin: 'captured' as const })),
      ...downloaded.images,
      ...cards.map((card) => ({ ...card, origin: 'rendered' as const })),
    ],
    missing: [...result.missing_sections, ...downloaded.missing],
  };
}

async function downloadLinkedImages(sources: EvidenceSources, result: CollectedOk, signal?: AbortSignal): Promise<GatheredEvidence> {
  const seen = new Set<string>();
  const links = (result.linked_images ?? []).filter((link) => {
    const key = `${link.section}\n${link.url}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const missing: string[] = [];
  const images = await Promise.all(
    links.slice(0, MAX_LINKED_IMAGES).map(async (link): Promise<EvidenceImage | null> => {
      if (sources.fetcher === null) {
        missing.push(`evidence:${link.section}`);
        return null;
      }
      try {
        const bytes = await sources.fetcher.fetch(link.url, signal);
        // The declared type is a placeholder: evidence.ts sniffs the real one from the bytes.
        return { section: link.section, media_type: 'image/png', bytes, origin: 'captured' };
      } catch (error) {
        if (!(error instanceof SafeFetchError)) throw error;
        sources.log?.(`linked image of section ${link.section} left out: ${error.code} (${error.message})`);
        missing.push(`evidence:${link.section}`);
        return null;
      }
    }),
  );
  return { images: images.filter((image) => image !== null), missing };
}

/**
 * Validates, previews and stores every gathered image (media/evidence.ts).
 * Run again when a media collection removed a blob meanwhile (the handler's
 * rounds), so it only stores what was gathered.
 */
export async function prepareItemEvidence(
  media: MediaStore,
  gathered: GatheredEvidence,
  share: ImageShare = NO_SHARE,
): Promise<{ evidence: EvidenceToStore[]; /** The item's missing sections, these evidence failures included. */ missing: string[] }> {
  const evidence: EvidenceToStore[] = [];
  const missing = [...gathered.missing];
  for (const image of gathered.images) {
    try {
      evidence.push({ section: image.section, origin: image.origin, prepared: await prepareEvidence(media, image, share) });
    } catch (error) {
      if (!(error instanceof EvidenceError)) throw error;
      // Unusable media is not a failed collection; the section is incomplete.
      missing.push(`evidence:${image.section}`);
    }
  }
  return { evidence, missing: [...new Set(missing)] };
}
