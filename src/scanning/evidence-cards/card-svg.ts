/**
 * Evidence cards: one SVG per page section, drawn from the values a collector
 * observed (name, headline, about, positions, skills, posts, company facts),
 * so a reader of a finding's evidence sees exactly what the check read. A
 * value that was not observed is written as "not observed", never filled in;
 * no photo, banner or logo is ever drawn (those are captured images, kept
 * separately), and every card says at its foot that it was rendered from data
 * observed at its capture time, not taken as a screenshot.
 *
 * The SVG is rasterised and encoded by sharp (librsvg and libvips, off the
 * event loop) as PNG at RASTER_SCALE of CARD_WIDTH x CARD_HEIGHT; its text is
 * drawn from glyphs librsvg rendered once (text-raster.ts).
 *
 * Every piece of text is XML-escaped (escapeXml): a name may contain markup
 * or characters XML cannot carry. Text is laid out here, by an estimate of
 * the glyph widths of DejaVu Sans, so the SVG is a pure function of the data:
 * the same data gives the same bytes (with the same sharp and fonts).
 * The shapes of a card (everything but its text) depend on its layout only,
 * never on the data's values or the page's URL: cards of one layout share
 * their shapes, which text-raster.ts then rasterizes once.
 *
 * The photo placeholder and the banner band are drawn from the areas a
 * person page outlines (domain/evidence-areas.ts), and the text inside them.
 *
 * What it does not do: decide which sections get a card (render-cards.ts),
 * validate or store the image (media/evidence.ts).
 */
import sharp from 'sharp';
import type { CollectedActivityEvent, CollectedCompany, CollectedProfile, Screenshot } from '../../domain/collected.js';
import { CARD_AREAS, CARD_UNITS } from '../../domain/evidence-areas.js';
import { imageWork, NO_SHARE, type ImageShare } from '../media/image-work.js';
import { rasterize, type Canvas } from './text-raster.js';
import { escapeXml } from './xml.js';

export { escapeXml };

/** The card's layout units; the areas a person page outlines are given in them (domain/evidence-areas.ts). */
export const CARD_WIDTH = CARD_UNITS.width;
export const CARD_HEIGHT = CARD_UNITS.height;
/**
 * The cards are laid out on an 800 x 450 canvas and rasterised at 0.8 of it
 * (640 x 360 px), anti-aliased: every line stays readable, with two thirds of
 * the pixels to draw, encode and preview.
 */
const RASTER_SCALE = 0.8;
/** The cards' size in pixels. */
export const CARD_PIXELS = { width: CARD_WIDTH * RASTER_SCALE, height: CARD_HEIGHT * RASTER_SCALE } as const;

/** What a card shows besides its data: when the data was observed (its foot). */
export interface CardLook {
  /** RFC 3339 instant of the observation (the collection's captured_at). */
  observedAt: string;
}

const FONT_FAMILY = "'DejaVu Sans', sans-serif";
const CANVAS: Canvas = { width: CARD_PIXELS.width, height: CARD_PIXELS.height, scale: RASTER_SCALE, fontFamily: FONT_FAMILY };
const PAGE_BG = '#f3f2ef';
const CARD_BG = '#ffffff';
const CARD_EDGE = '#dfdedb';
const INK = '#1f1f1f';
const MUTED = '#666666';
const FAINT = '#8c8c8c';
const LINK = '#0a66c2';
const NEUTRAL = '#d4d4d4';
const NEUTRAL_BAND = '#c9d1d9';
const ACCENT = '#0a66c2';
const TILE = '#5b6b7c';
const EVENT_DOT = '#7a8a99';

const CARD = { x: 40, y: 20, width: CARD_WIDTH - 80, height: CARD_HEIGHT - 44 };
const CARD_RADIUS = 10;
const LEFT = 70;
const RIGHT = CARD.x + CARD.width - 30;
/** Written where an observed value would be, when the collector could not observe it. */
export const NOT_OBSERVED = 'not observed';

// ---------------------------------------------------------------- text

/** Estimated advance of DejaVu Sans per character, in em (bold is wider). */
function emPerChar(bold: boolean): number {
  return bold ? 0.66 : 0.56;
}

function charsThatFit(width: number, size: number, bold = false): number {
  return Math.max(1, Math.floor(width / (size * emPerChar(bold))));
}

/** At most `max` characters (code points), with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, Math.max(0, max - 1))
        .join('')
        .trimEnd()}…`;
}

/** Greedy word wrap into at most `maxLines` lines of `maxChars`; the last line ends in an ellipsis when text is left over. */
export function wrap(text: string, maxChars: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  const words = text.split(/\s+/u).filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    const word = truncate(words[i], maxChars);
    const candidate = line === '' ? word : `${line} ${word}`;
    if (Array.from(candidate).length <= maxChars) {
      line = candidate;
      continue;
    }
    lines.push(line);
    line = word;
    if (lines.length === maxLines) {
      const last = lines[maxLines - 1];
      lines[maxLines - 1] = Array.from(last).length + 1 <= maxChars ? `${last}…` : truncate(last, maxChars);
      return lines;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** 1234567 → "1,234,567", the same on every machine (no locale). */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/gu, ',');
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

// ---------------------------------------------------------------- drawing

interface TextStyle {
  size?: number;
  bold?: boolean;
  fill?: string;
  anchor?: 'start' | 'middle' | 'end';
  italic?: boolean;
}

function text(x: number, y: number, content: string, style: TextStyle = {}): string {
  const { size = 14, bold = false, fill = INK, anchor = 'start', italic = false } = style;
  const attributes = [`x="${x}"`, `y="${y}"`, `font-size="${size}"`, `fill="${fill}"`];
  if (bold) attributes.push('font-weight="bold"');
  if (italic) attributes.push('font-style="italic"');
  if (anchor !== 'start') attributes.push(`text-anchor="${anchor}"`);
  return `<text ${attributes.join(' ')}>${escapeXml(content)}</text>`;
}

/** One line of text cut to `width` pixels (by default, what is left of the card to the right of x). */
function line(x: number, y: number, content: string, style: TextStyle = {}, width = RIGHT - x): string {
  return text(x, y, truncate(content, charsThatFit(width, style.size ?? 14, style.bold)), style);
}

/** Wrapped text; returns the SVG and the baseline below the last line. */
function paragraph(x: number, y: number, content: string, maxLines: number, style: TextStyle & { leading?: number } = {}, width = RIGHT - x) {
  const size = style.size ?? 14;
  const leading = style.leading ?? Math.round(size * 1.45);
  const lines = wrap(content, charsThatFit(width, size, style.bold), maxLines);
  return { svg: lines.map((l, i) => text(x, y + i * leading, l, style)).join(''), bottom: y + lines.length * leading };
}

function rect(x: number, y: number, width: number, height: number, fill: string, extra = ''): string {
  return `<rect x="${x}" y="${y}" width="${width}" height="${height}" fill="${fill}"${extra === '' ? '' : ` ${extra}`}/>`;
}

function circle(cx: number, cy: number, r: number, fill: string): string {
  return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}"/>`;
}

/** A band across the top of the card, following its rounded corners (a clip path would double the rendering time). */
function cardTop(height: number, fill: string): string {
  const { x, y, width } = CARD;
  const r = CARD_RADIUS;
  if (height >= r)
    return (
      `<path d="M ${x} ${y + height} V ${y + r} ` +
      `Q ${x} ${y} ${x + r} ${y} H ${x + width - r} Q ${x + width} ${y} ${x + width} ${y + r} V ${y + height} Z" fill="${fill}"/>`
    );
  // Thinner than the corner radius: the band is the top of a rounded card, cut off at `height`.
  return (
    `<path d="M ${x + 2} ${y + height} Q ${x + 2} ${y} ${x + r} ${y} ` +
    `H ${x + width - r} Q ${x + width - 2} ${y} ${x + width - 2} ${y + height} Z" fill="${fill}"/>`
  );
}

/** "2026-10-30 14:05 UTC" from an RFC 3339 instant; the instant as given when it cannot be read. */
export function observedLabel(instant: string): string {
  const ms = Date.parse(instant);
  if (!Number.isFinite(ms)) return instant;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * The page: background, a white card with rounded corners and `content` on
 * it, and below the card the line that tells a reader what this image is.
 * Text is anti-aliased (optimizeLegibility): without it, the small lines of a
 * 640 px wide card are hard to read.
 */
function page(look: CardLook, content: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_PIXELS.width}" height="${CARD_PIXELS.height}" ` +
      `viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}" text-rendering="optimizeLegibility">`,
    rect(0, 0, CARD_WIDTH, CARD_HEIGHT, PAGE_BG),
    rect(CARD.x, CARD.y, CARD.width, CARD.height, CARD_BG, `rx="${CARD_RADIUS}" stroke="${CARD_EDGE}"`),
    `<g font-family="${FONT_FAMILY}">${content}`,
    text(CARD.x + 4, CARD_HEIGHT - 8, `Evidence card rendered from data observed ${observedLabel(look.observedAt)}. Not a screenshot.`, {
      size: 12,
      fill: MUTED,
    }),
    '</g></svg>',
  ].join('');
}

/** A section card: accent strip, the section title and, on the right, whose page it is. */
function sectionPage(look: CardLook, title: string, owner: string | null, body: string): string {
  return page(
    look,
    cardTop(6, ACCENT) +
      text(LEFT, 68, title, { size: 22, bold: true }) +
      line(RIGHT, 68, owner ?? `Name ${NOT_OBSERVED}`, { size: 13, fill: FAINT, anchor: 'end', italic: owner === null }, 300) +
      body,
  );
}

function note(x: number, y: number, content: string, size = 15): string {
  return text(x, y, content, { size, fill: FAINT, italic: true });
}

/** "yes" / "no" / "not observed" of an observed flag. */
function flagText(value: boolean | null, yes: string, no: string): string {
  return value === null ? NOT_OBSERVED : value ? yes : no;
}

// ---------------------------------------------------------------- sections

/**
 * Name, headline, location, connections and followers, and whether a photo
 * and a custom banner were seen. The photo and banner themselves are not
 * drawn: when the source links them they are captured images of their own.
 */
export function topCardSvg(profile: CollectedProfile, look: CardLook): string {
  const { banner, photo } = CARD_AREAS;
  const parts: string[] = [cardTop(banner.height, NEUTRAL_BAND)];
  parts.push(
    text(RIGHT, 100, `Photo: ${flagText(profile.has_photo, 'yes', 'none')} · Banner: ${flagText(profile.has_banner, 'custom', 'default')}`, {
      size: 13,
      fill: INK,
      anchor: 'end',
    }),
  );
  // A neutral placeholder where the photo sits: the photo itself, when linked, is a captured image of its own.
  const [cx, cy, r] = [photo.x + photo.width / 2, photo.y + photo.height / 2, photo.width / 2];
  parts.push(circle(cx, cy, r, CARD_BG), circle(cx, cy, r - 6, NEUTRAL));
  if (profile.name === null || profile.name === '') parts.push(note(LEFT, 242, profile.name === null ? `Name ${NOT_OBSERVED}` : 'No name shown', 24));
  else parts.push(line(LEFT, 242, profile.name, { size: 28, bold: true }));
  // The headline takes one or two lines; the location is drawn below the second either way, so each keeps its area.
  const y = 274;
  if (profile.headline === null) parts.push(note(LEFT, y, `Headline ${NOT_OBSERVED}`, 16));
  else if (profile.headline.trim() === '') parts.push(note(LEFT, y, 'No headline', 16));
  else parts.push(paragraph(LEFT, y, profile.headline, 2, { size: 17, leading: 22 }).svg);
  const locationY = 322;
  if (profile.location === null) parts.push(note(LEFT, locationY, `Location ${NOT_OBSERVED}`, 14));
  else if (profile.location.trim() === '') parts.push(note(LEFT, locationY, 'No location', 14));
  else parts.push(line(LEFT, locationY, profile.location, { size: 14, fill: MUTED }));
  parts.push(
    profile.connections === null
      ? note(LEFT, 364, `Connections ${NOT_OBSERVED}`, 14)
      : text(LEFT, 364, plural(profile.connections, 'connection', 'connections'), { size: 14, bold: true, fill: LINK }),
  );
  parts.push(
    profile.followers === null
      ? note(LEFT, 390, `Followers ${NOT_OBSERVED}`, 14)
      : text(LEFT, 390, plural(profile.followers, 'follower', 'followers'), { size: 14, fill: MUTED }),
  );
  return page(look, parts.join(''));
}

/** The start of the about text (six lines at most: text costs the most to draw), and the number of featured items. */
export function aboutSvg(profile: CollectedProfile, look: CardLook): string {
  const parts: string[] = [];
  if (profile.about === null) parts.push(note(LEFT, 112, `About text ${NOT_OBSERVED}.`));
  else if (profile.about.trim() === '') parts.push(note(LEFT, 112, 'No about text.'));
  else parts.push(paragraph(LEFT, 112, profile.about, 6, { size: 15, leading: 24 }).svg);
  parts.push(rect(LEFT, 372, CARD_WIDTH - 2 * LEFT, 1, CARD_EDGE));
  parts.push(
    profile.featured_count === null
      ? note(LEFT, 398, `Featured items ${NOT_OBSERVED}`, 14)
      : text(LEFT, 398, `Featured · ${plural(profile.featured_count, 'item', 'items')}`, { size: 14, bold: true, fill: MUTED }),
  );
  return sectionPage(look, 'About', profile.name, parts.join(''));
}

function period(start: string | null, end: string | null): string {
  return `${start ?? 'start not shown'} – ${end ?? 'present'}`;
}

/** Up to four positions: title, company, dates, the start of the description. */
export function experienceSvg(profile: CollectedProfile, look: CardLook): string {
  const positions = profile.positions;
  const parts: string[] = [];
  if (positions === null) parts.push(note(LEFT, 112, `Positions ${NOT_OBSERVED}.`));
  else if (positions.length === 0) parts.push(note(LEFT, 112, 'No positions listed.'));
  let y = 88;
  for (const position of (positions ?? []).slice(0, 4)) {
    const initial = position.company === null ? '?' : (Array.from(position.company)[0]?.toUpperCase() ?? '?');
    parts.push(rect(LEFT, y, 48, 48, TILE, 'rx="6"'));
    parts.push(text(LEFT + 24, y + 32, initial, { size: 22, bold: true, fill: CARD_BG, anchor: 'middle' }));
    parts.push(line(135, y + 14, position.title, { size: 15, bold: true }));
    parts.push(line(135, y + 33, position.company ?? 'Company not shown', { size: 13, fill: position.company === null ? FAINT : INK }));
    parts.push(text(135, y + 50, period(position.start, position.end), { size: 12, fill: MUTED }));
    if (position.description !== null) parts.push(line(135, y + 67, position.description, { size: 12, fill: FAINT }));
    y += 78;
  }
  if (positions !== null && positions.length > 4)
    parts.push(text(RIGHT, 408, `+ ${plural(positions.length - 4, 'more position', 'more positions')}`, { size: 12, fill: MUTED, anchor: 'end' }));
  return sectionPage(look, 'Experience', profile.name, parts.join(''));
}

/** The skills as a list in two columns, in order, as many as fit (24). */
export function skillsSvg(profile: CollectedProfile, look: CardLook): string {
  const skills = profile.skills;
  const parts: string[] = [];
  if (skills === null) parts.push(note(LEFT, 112, `Skills ${NOT_OBSERVED}.`));
  else if (skills.length === 0) parts.push(note(LEFT, 112, 'No skills listed.'));
  const perColumn = 12;
  const shown = (skills ?? []).slice(0, 2 * perColumn);
  shown.forEach((skill, i) => {
    const x = i < perColumn ? LEFT : LEFT + 335;
    parts.push(line(x, 104 + (i % perColumn) * 24, `• ${skill}`, { size: 14 }, 320));
  });
  if (skills !== null && skills.length > 0)
    parts.push(
      text(LEFT, 408, `${plural(skills.length, 'skill', 'skills')} listed${shown.length < skills.length ? `, ${formatCount(shown.length)} shown` : ''}`, {
        size: 13,
        fill: MUTED,
      }),
    );
  return sectionPage(look, 'Skills', profile.name, parts.join(''));
}

const VERBS: Record<CollectedActivityEvent['event_type'], string> = {
  post: 'posted',
  repost: 'reposted',
  comment: 'commented',
  reaction: 'reacted',
  unknown: 'was active',
};

function countsLine(counts: CollectedActivityEvent['counts']): string {
  const count = (n: number | null, one: string, many: string) => (n === null ? `${many} ${NOT_OBSERVED}` : plural(n, one, many));
  return [count(counts.reactions, 'reaction', 'reactions'), count(counts.comments, 'comment', 'comments'), count(counts.reposts, 'repost', 'reposts')].join(
    ' · ',
  );
}

/** The newest three events: who did what, when, the text and its counts. [] is verified empty activity. */
export function activitySvg(owner: string | null, events: readonly CollectedActivityEvent[], look: CardLook): string {
  const parts: string[] = [];
  if (events.length === 0) parts.push(note(LEFT, 112, 'No recent activity.'));
  let y = 86;
  for (const event of events.slice(0, 3)) {
    parts.push(rect(60, y, CARD_WIDTH - 120, 76, PAGE_BG, 'rx="6"'));
    parts.push(circle(92, y + 26, 14, EVENT_DOT));
    const who = `${event.actor.name ?? owner ?? 'Name not observed'} ${VERBS[event.event_type]}`;
    const when = event.occurred_at === null ? `date ${NOT_OBSERVED}` : event.occurred_at.slice(0, 10);
    parts.push(line(120, y + 20, who, { size: 14, bold: true }, 460));
    parts.push(text(RIGHT - 10, y + 20, when, { size: 12, fill: MUTED, anchor: 'end' }));
    parts.push(event.text === null ? note(120, y + 42, `Text ${NOT_OBSERVED}`, 13) : line(120, y + 42, event.text, { size: 13 }, RIGHT - 130));
    parts.push(line(120, y + 63, countsLine(event.counts), { size: 12, fill: MUTED }, RIGHT - 130));
    y += 86;
  }
  if (events.length > 3)
    parts.push(text(RIGHT, 408, `+ ${plural(events.length - 3, 'older event', 'older events')}`, { size: 12, fill: MUTED, anchor: 'end' }));
  return sectionPage(look, 'Activity', owner, parts.join(''));
}

/** Name, tagline, industry, followers, website and, in activity mode, the newest posts. No logo is drawn. */
export function companySvg(company: CollectedCompany, activity: readonly CollectedActivityEvent[] | null, look: CardLook): string {
  const parts: string[] = [cardTop(6, ACCENT), text(LEFT, 68, 'Company page', { size: 22, bold: true })];
  if (company.name === null) parts.push(note(LEFT, 118, `Name ${NOT_OBSERVED}`, 24));
  else parts.push(line(LEFT, 118, company.name, { size: 28, bold: true }));
  const fact = (y: number, label: string, value: string | null, style: TextStyle = { size: 15 }) =>
    value === null ? note(LEFT, y, `${label} ${NOT_OBSERVED}`, 15) : line(LEFT, y, value, style);
  parts.push(fact(152, 'Tagline', company.tagline, { size: 16 }));
  parts.push(fact(180, 'Industry', company.industry, { size: 15, fill: MUTED }));
  parts.push(
    fact(208, 'Followers', company.follower_count === null ? null : plural(company.follower_count, 'follower', 'followers'), { size: 15, fill: MUTED }),
  );
  parts.push(fact(236, 'Website', company.website, { size: 15, fill: LINK }));
  if (activity !== null) {
    const posts = activity.slice(0, 4);
    parts.push(text(LEFT, 282, posts.length === 0 ? 'No recent posts.' : 'Recent posts', { size: 13, bold: true, fill: MUTED }));
    posts.forEach((post, i) => {
      const x = LEFT + i * 165;
      parts.push(rect(x, 294, 150, 104, PAGE_BG, 'rx="6"'));
      parts.push(post.text === null ? note(x + 8, 314, `Text ${NOT_OBSERVED}`, 11) : paragraph(x + 8, 314, post.text, 5, { size: 11, leading: 16 }, 138).svg);
    });
  }
  return page(look, parts.join(''));
}

// ---------------------------------------------------------------- raster

/**
 * The SVG as the evidence image of `section`: PNG, lossless with the alpha
 * channel dropped (the card is opaque), which suits flat colours and text.
 * sharp embeds no time stamp or other varying metadata, so the bytes depend
 * on the SVG alone.
 */
export async function renderCard(section: string, svg: string, share: ImageShare = NO_SHARE): Promise<Screenshot> {
  // Text from cached glyphs when it needs no shaping (text-raster.ts); else, or when a glyph could not
  // be measured, the whole SVG through librsvg.
  const pixels = await rasterize(svg, CANVAS, share).catch(() => null);
  const bytes = await imageWork(() => {
    const image = pixels
      ? sharp(pixels, { raw: { width: CARD_PIXELS.width, height: CARD_PIXELS.height, channels: 3 } })
      : sharp(Buffer.from(svg, 'utf8')).removeAlpha();
    return image.png({ compressionLevel: 1 }).toBuffer();
  }, share);
  return { section, media_type: 'image/png', bytes };
}
