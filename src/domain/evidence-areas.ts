/**
 * Where on an evidence image a check's subject is: the area a person page
 * outlines when it shows a finding's evidence.
 *
 * Each check that has evidence names one area (the catalog's
 * `evidence_area`); the area belongs to one page section, which is the
 * check's evidence section. The boxes are given in the layout units of the
 * rendered evidence cards (CARD_UNITS, the SVG view box of
 * scanning/evidence-cards/card-svg.ts, which draws the photo placeholder and
 * the banner band from these very boxes and its text inside them, as
 * test/unit/evidence-areas.test.ts checks). A box covers every place its
 * subject can be drawn (a headline of one or two lines).
 *
 * Only a rendered card has a known layout. A captured image (a collector's
 * screenshot, a linked photo or banner) is shown without a box: a linked photo
 * is its subject whole, and the layout of a screenshot is the source's, which
 * this service does not guess (markedArea returns null).
 *
 * Pure data and one function; no I/O.
 */
import type { EvidenceOrigin } from './collected.js';

/** Screenshot sections (`Screenshot.section`) a check may draw evidence from. */
export type EvidenceSection = 'top_card' | 'about' | 'experience' | 'skills' | 'activity';

/** The layout units of a rendered card: its SVG view box. */
export const CARD_UNITS = { width: 800, height: 450 } as const;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AreaDefinition extends Box {
  section: EvidenceSection;
  /** How a reader names it: "Outlined: the headline". */
  label: string;
}

const TEXT_LEFT = 64;
const TEXT_WIDTH = 672;

export const CARD_AREAS = {
  banner: { section: 'top_card', label: 'the banner', x: 40, y: 20, width: 720, height: 110 },
  photo: { section: 'top_card', label: 'the photo', x: 82, y: 82, width: 116, height: 116 },
  name: { section: 'top_card', label: 'the name', x: TEXT_LEFT, y: 210, width: TEXT_WIDTH, height: 42 },
  headline: { section: 'top_card', label: 'the headline', x: TEXT_LEFT, y: 256, width: TEXT_WIDTH, height: 46 },
  location: { section: 'top_card', label: 'the location', x: TEXT_LEFT, y: 306, width: TEXT_WIDTH, height: 24 },
  connections: { section: 'top_card', label: 'the connections', x: TEXT_LEFT, y: 347, width: 320, height: 23 },
  followers: { section: 'top_card', label: 'the followers', x: TEXT_LEFT, y: 373, width: 320, height: 23 },
  about_text: { section: 'about', label: 'the About text', x: TEXT_LEFT, y: 94, width: TEXT_WIDTH, height: 150 },
  featured: { section: 'about', label: 'the featured items', x: TEXT_LEFT, y: 381, width: TEXT_WIDTH, height: 24 },
  positions: { section: 'experience', label: 'the positions', x: TEXT_LEFT, y: 84, width: TEXT_WIDTH, height: 320 },
  skills: { section: 'skills', label: 'the skills', x: TEXT_LEFT, y: 86, width: TEXT_WIDTH, height: 330 },
  events: { section: 'activity', label: 'the recent activity', x: 56, y: 82, width: 688, height: 256 },
} as const satisfies Record<string, AreaDefinition>;

export type EvidenceArea = keyof typeof CARD_AREAS;

/** The section an area is drawn in: a check's evidence section. */
export function sectionOf(area: EvidenceArea | null): EvidenceSection | null {
  return area === null ? null : CARD_AREAS[area].section;
}

/**
 * The box to outline on an image for a check's area, in CARD_UNITS; null
 * when the image is not a rendered card of the area's section (a capture,
 * or a card of another section).
 */
export function markedArea(image: { origin: EvidenceOrigin; section: string }, area: EvidenceArea | null): AreaDefinition | null {
  if (area === null || image.origin !== 'rendered') return null;
  const definition: AreaDefinition = CARD_AREAS[area];
  return definition.section === image.section ? definition : null;
}
