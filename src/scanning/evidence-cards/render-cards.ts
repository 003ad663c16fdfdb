/**
 * Which sections of a collected item get an evidence card, and the cards.
 *
 * A card is rendered for every section of the item that has observed data
 * and no screenshot of its own from the collector: in `full_profile` mode the
 * top card (name, headline, location, counts), `about`, `experience` and
 * `skills`; in `activity` mode the activity; for a company page the company.
 * A section whose data the collector did not observe (null), or that it
 * reports in `missing_sections`, gets no card: there is nothing to show, and
 * the item's warning says so. Inside a card, a value that was not observed
 * is written as such (card-svg.ts). Images the record links to (a photo, a banner, a logo) do not
 * replace a card: they show a picture, not the section's text.
 *
 * Used for every collector's results, by the item's evidence (media/
 * item-evidence.ts); the collectors themselves render nothing.
 */
import type { CollectResult, ItemKind, ScanMode, Screenshot } from '../../domain/collected.js';
import { NO_SHARE, type ImageShare } from '../media/image-work.js';
import { aboutSvg, activitySvg, companySvg, experienceSvg, renderCard, skillsSvg, topCardSvg, type CardLook } from './card-svg.js';

export type CollectedOk = Extract<CollectResult, { outcome: 'ok' }>;

/** What kind of item the result is of: which sections it can have. */
export interface CardSubject {
  kind: ItemKind;
  mode: ScanMode;
}

/** The SVG of each section that gets a card, in a stable order. */
export function cardSvgs(subject: CardSubject, result: CollectedOk): Array<{ section: string; svg: string }> {
  const look: CardLook = { observedAt: result.captured_at };
  const skip = new Set([...result.screenshots.map((s) => s.section), ...result.missing_sections]);
  const cards: Array<{ section: string; svg: () => string }> = [];
  const { profile, company, activity } = result;
  if (subject.kind === 'company_page') {
    if (company !== null) cards.push({ section: 'company', svg: () => companySvg(company, activity, look) });
  } else if (subject.mode === 'activity') {
    if (activity !== null) cards.push({ section: 'activity', svg: () => activitySvg(profile?.name ?? null, activity, look) });
  } else if (profile !== null) {
    const topCard = [profile.name, profile.headline, profile.location, profile.connections, profile.followers, profile.has_photo, profile.has_banner];
    if (topCard.some((value) => value !== null)) cards.push({ section: 'top_card', svg: () => topCardSvg(profile, look) });
    if (profile.about !== null || profile.featured_count !== null) cards.push({ section: 'about', svg: () => aboutSvg(profile, look) });
    if (profile.positions !== null) cards.push({ section: 'experience', svg: () => experienceSvg(profile, look) });
    if (profile.skills !== null) cards.push({ section: 'skills', svg: () => skillsSvg(profile, look) });
  }
  return cards.filter((card) => !skip.has(card.section)).map((card) => ({ section: card.section, svg: card.svg() }));
}

/** The cards of the item, rendered (PNG); their image work waits in `share`'s turn (media/image-work.ts). */
export async function renderEvidenceCards(subject: CardSubject, result: CollectedOk, share: ImageShare = NO_SHARE): Promise<Screenshot[]> {
  return Promise.all(cardSvgs(subject, result).map((card) => renderCard(card.section, card.svg, share)));
}
