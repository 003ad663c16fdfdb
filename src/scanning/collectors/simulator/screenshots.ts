/**
 * The simulator's screenshots: one SVG mock-up per page section, showing the
 * section's own text (name, headline, about, positions, skills, posts), so a
 * person reading a finding's evidence sees what the check talked about. The
 * SVG is rasterised and encoded by sharp (librsvg and libvips, off the event
 * loop) as PNG or JPEG at RASTER_SCALE of SCREENSHOT_WIDTH x SCREENSHOT_HEIGHT;
 * its text is drawn from glyphs librsvg rendered once (text-raster.ts).
 *
 * Every piece of text is XML-escaped (escapeXml): a name may contain markup
 * or characters XML cannot carry. Text is laid out here, by an estimate of
 * the glyph widths of DejaVu Sans, so the SVG is a pure function of the data:
 * the same data gives the same bytes (with the same sharp and fonts).
 * Colours are derived from hashes of the URL, never from a clock.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { imageWork, NO_SHARE, type ImageShare } from '../../media/image-work.js';
import { rasterize, type Canvas } from './text-raster.js';
import { escapeXml } from './xml.js';

export { escapeXml };
import type { CollectedActivityEvent, CollectedCompany, CollectedProfile, Screenshot } from '../collector.js';

export const SCREENSHOT_WIDTH = 800;
export const SCREENSHOT_HEIGHT = 450;
/**
 * The mock-ups are laid out on an 800 x 450 canvas and rasterised at 0.8 of
 * it (640 x 360 px), anti-aliased: every line stays readable, with two thirds
 * of the pixels to draw, encode and preview.
 */
const RASTER_SCALE = 0.8;
/** The screenshots' size in pixels. */
export const SCREENSHOT_PIXELS = { width: SCREENSHOT_WIDTH * RASTER_SCALE, height: SCREENSHOT_HEIGHT * RASTER_SCALE } as const;

/** What the look of a page depends on besides its data: its URL (accent colours). */
export interface PageLook {
  url: string;
}

const FONT_FAMILY = "'DejaVu Sans', sans-serif";
const CANVAS: Canvas = { width: SCREENSHOT_PIXELS.width, height: SCREENSHOT_PIXELS.height, scale: RASTER_SCALE, fontFamily: FONT_FAMILY };
const PAGE_BG = '#f3f2ef';
const CARD_BG = '#ffffff';
const CARD_EDGE = '#dfdedb';
const INK = '#1f1f1f';
const MUTED = '#666666';
const FAINT = '#8c8c8c';
const LINK = '#0a66c2';
const CHIP = '#eef3f8';
const DEFAULT_BANNER = '#a0b4c8';
const ACCENTS = ['#0a66c2', '#008060', '#c45028', '#7846aa', '#c89614', '#28285a'];

const CARD = { x: 40, y: 20, width: SCREENSHOT_WIDTH - 80, height: SCREENSHOT_HEIGHT - 40 };
const CARD_RADIUS = 10;
const LEFT = 70;
const RIGHT = CARD.x + CARD.width - 30;

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

function accentOf(key: string): string {
  const digest = createHash('sha256').update(key).digest();
  return ACCENTS[digest[0] % ACCENTS.length];
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

/**
 * The page: background and a white card with rounded corners; `content` on it.
 * Text is anti-aliased (optimizeLegibility): without it, the small lines of a
 * 640 px wide screenshot are hard to read.
 */
function page(content: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SCREENSHOT_PIXELS.width}" height="${SCREENSHOT_PIXELS.height}" ` +
      `viewBox="0 0 ${SCREENSHOT_WIDTH} ${SCREENSHOT_HEIGHT}" text-rendering="optimizeLegibility">`,
    rect(0, 0, SCREENSHOT_WIDTH, SCREENSHOT_HEIGHT, PAGE_BG),
    rect(CARD.x, CARD.y, CARD.width, CARD.height, CARD_BG, `rx="${CARD_RADIUS}" stroke="${CARD_EDGE}"`),
    `<g font-family="${FONT_FAMILY}">${content}</g>`,
    '</svg>',
  ].join('');
}

/** A section card: accent strip, the section title and, on the right, whose page it is. */
function sectionPage(look: PageLook, title: string, owner: string | null, body: string): string {
  return page(
    cardTop(6, accentOf(look.url)) +
      text(LEFT, 68, title, { size: 22, bold: true }) +
      (owner === null ? '' : line(RIGHT, 68, owner, { size: 13, fill: FAINT, anchor: 'end' }, 300)) +
      body,
  );
}

function emptyNote(y: number, note: string): string {
  return text(LEFT, y, note, { size: 15, fill: FAINT, italic: true });
}

// ---------------------------------------------------------------- sections

/** Name, headline, location, photo, banner, connections and followers. */
export function topCardSvg(profile: CollectedProfile, look: PageLook): string {
  const parts: string[] = [];
  if (profile.has_banner === true) {
    const accent = accentOf(look.url);
    parts.push(cardTop(140, accent));
    for (let x = 60; x < SCREENSHOT_WIDTH - 60; x += 48) parts.push(rect(x, 40, 20, 100, CARD_BG, 'opacity="0.35"'));
  } else {
    parts.push(cardTop(140, DEFAULT_BANNER));
  }
  parts.push(circle(140, 160, 64, CARD_BG));
  if (profile.has_photo === true) {
    parts.push(circle(140, 160, 58, accentOf(`${look.url}|photo`)), circle(140, 140, 22, '#f0dcc8'));
    parts.push(`<path d="M 100 205 Q 140 160 180 205 Z" fill="#f0dcc8"/>`);
  } else {
    parts.push(circle(140, 160, 58, '#d4d4d4'), circle(140, 145, 20, '#f5f5f5'), `<path d="M 104 200 Q 140 165 176 200 Z" fill="#f5f5f5"/>`);
  }
  parts.push(line(LEFT, 262, profile.name ?? '', { size: 28, bold: true }));
  let y = 292;
  if (profile.headline !== null && profile.headline !== '') {
    const headline = paragraph(LEFT, y, profile.headline, 2, { size: 17, leading: 22 });
    parts.push(headline.svg);
    y = headline.bottom;
  }
  if (profile.location !== null && profile.location !== '') parts.push(line(LEFT, Math.max(y + 6, 330), profile.location, { size: 14, fill: MUTED }));
  if (profile.connections !== null) parts.push(text(LEFT, 370, plural(profile.connections, 'connection', 'connections'), { size: 14, bold: true, fill: LINK }));
  if (profile.followers !== null) parts.push(text(LEFT, 394, plural(profile.followers, 'follower', 'followers'), { size: 14, fill: MUTED }));
  return page(parts.join(''));
}

/** The start of the about text (six lines at most: text costs the most to draw), and the number of featured items. */
export function aboutSvg(profile: CollectedProfile, look: PageLook): string {
  const parts: string[] = [];
  if (profile.about === null || profile.about === '') parts.push(emptyNote(112, 'No about text.'));
  else parts.push(paragraph(LEFT, 112, profile.about, 6, { size: 15, leading: 24 }).svg);
  if (profile.featured_count !== null) {
    parts.push(rect(LEFT, 378, SCREENSHOT_WIDTH - 2 * LEFT, 1, CARD_EDGE));
    parts.push(text(LEFT, 404, `Featured · ${plural(profile.featured_count, 'item', 'items')}`, { size: 14, bold: true, fill: MUTED }));
  }
  return sectionPage(look, 'About', profile.name, parts.join(''));
}

function period(start: string | null, end: string | null): string {
  return `${start ?? 'unknown start'} – ${end ?? 'present'}`;
}

/** Up to four positions: title, company, dates, the start of the description. */
export function experienceSvg(profile: CollectedProfile, look: PageLook): string {
  const positions = profile.positions ?? [];
  const parts: string[] = [];
  if (positions.length === 0) parts.push(emptyNote(112, 'No positions listed.'));
  let y = 88;
  for (const position of positions.slice(0, 4)) {
    const initial = position.company === null ? '?' : (Array.from(position.company)[0]?.toUpperCase() ?? '?');
    parts.push(rect(LEFT, y, 48, 48, accentOf(position.company ?? 'none'), 'rx="6"'));
    parts.push(text(LEFT + 24, y + 32, initial, { size: 22, bold: true, fill: CARD_BG, anchor: 'middle' }));
    parts.push(line(135, y + 14, position.title, { size: 15, bold: true }));
    parts.push(line(135, y + 33, position.company ?? 'Company not shown', { size: 13, fill: position.company === null ? FAINT : INK }));
    parts.push(text(135, y + 50, period(position.start, position.end), { size: 12, fill: MUTED }));
    if (position.description !== null) parts.push(line(135, y + 67, position.description, { size: 12, fill: FAINT }));
    y += 80;
  }
  if (positions.length > 4)
    parts.push(text(RIGHT, 414, `+ ${plural(positions.length - 4, 'more position', 'more positions')}`, { size: 12, fill: MUTED, anchor: 'end' }));
  return sectionPage(look, 'Experience', profile.name, parts.join(''));
}

/** The skills as chips, in order, as many as fit. */
export function skillsSvg(profile: CollectedProfile, look: PageLook): string {
  const skills = profile.skills ?? [];
  const parts: string[] = [];
  if (skills.length === 0) parts.push(emptyNote(112, 'No skills listed.'));
  let x = LEFT;
  let y = 92;
  let shown = 0;
  for (const skill of skills) {
    const label = truncate(skill, 40);
    const width = Math.ceil(Array.from(label).length * 14 * emPerChar(false)) + 28;
    if (x + width > RIGHT) {
      x = LEFT;
      y += 44;
    }
    if (y > 340) break;
    parts.push(rect(x, y, width, 32, CHIP, `rx="16" stroke="${CARD_EDGE}"`));
    parts.push(text(x + 14, y + 21, label, { size: 14 }));
    x += width + 12;
    shown++;
  }
  if (skills.length > 0)
    parts.push(
      text(LEFT, 414, `${plural(skills.length, 'skill', 'skills')} listed${shown < skills.length ? `, ${formatCount(shown)} shown` : ''}`, {
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
  const parts: string[] = [];
  if (counts.reactions !== null) parts.push(plural(counts.reactions, 'reaction', 'reactions'));
  if (counts.comments !== null) parts.push(plural(counts.comments, 'comment', 'comments'));
  if (counts.reposts !== null) parts.push(plural(counts.reposts, 'repost', 'reposts'));
  return parts.join(' · ');
}

/** The newest three events: who did what, when, the text and its counts. */
export function activitySvg(owner: string | null, events: readonly CollectedActivityEvent[], look: PageLook): string {
  const parts: string[] = [];
  if (events.length === 0) parts.push(emptyNote(112, 'No recent activity.'));
  let y = 86;
  for (const event of events.slice(0, 3)) {
    parts.push(rect(60, y, SCREENSHOT_WIDTH - 120, 76, PAGE_BG, 'rx="6"'));
    parts.push(circle(92, y + 26, 14, accentOf(event.event_type)));
    const who = `${event.actor.name ?? owner ?? 'Someone'} ${VERBS[event.event_type]}`;
    const when = event.occurred_at === null ? 'date unknown' : event.occurred_at.slice(0, 10);
    parts.push(line(120, y + 20, who, { size: 14, bold: true }, 480));
    parts.push(text(RIGHT - 10, y + 20, when, { size: 12, fill: MUTED, anchor: 'end' }));
    parts.push(line(120, y + 42, event.text ?? '', { size: 13 }, RIGHT - 130));
    parts.push(text(120, y + 63, countsLine(event.counts), { size: 12, fill: MUTED }));
    y += 86;
  }
  return sectionPage(look, 'Activity', owner, parts.join(''));
}

/** Name, tagline, industry, followers, website and, in activity mode, the newest posts. */
export function companySvg(company: CollectedCompany, activity: readonly CollectedActivityEvent[] | null, look: PageLook): string {
  const parts: string[] = [cardTop(120, accentOf(look.url))];
  const name = company.name ?? '';
  parts.push(rect(70, 100, 90, 90, CARD_BG, 'rx="8"'), rect(76, 106, 78, 78, accentOf(`${look.url}|logo`), 'rx="6"'));
  const initials = name
    .split(/\s+/u)
    .filter((w) => w !== '')
    .slice(0, 2)
    .map((w) => Array.from(w)[0]?.toUpperCase() ?? '')
    .join('');
  parts.push(text(115, 157, initials, { size: 32, bold: true, fill: CARD_BG, anchor: 'middle' }));
  parts.push(line(LEFT, 228, name, { size: 28, bold: true }));
  if (company.tagline !== null) parts.push(line(LEFT, 256, company.tagline, { size: 16 }));
  const facts = [company.industry, company.follower_count === null ? null : plural(company.follower_count, 'follower', 'followers')].filter((f) => f !== null);
  if (facts.length > 0) parts.push(line(LEFT, 282, facts.join(' · '), { size: 14, fill: MUTED }));
  if (company.website !== null) parts.push(line(LEFT, 306, company.website, { size: 14, fill: LINK }));
  const posts = (activity ?? []).slice(0, 4);
  if (posts.length > 0) parts.push(text(LEFT, 332, 'Recent posts', { size: 13, bold: true, fill: MUTED }));
  posts.forEach((post, i) => {
    const x = LEFT + i * 165;
    parts.push(rect(x, 342, 150, 74, PAGE_BG, 'rx="6"'));
    parts.push(paragraph(x + 8, 360, post.text ?? '', 3, { size: 11, leading: 15 }, 138).svg);
  });
  return page(parts.join(''));
}

// ---------------------------------------------------------------- raster

/**
 * The SVG as a screenshot of `section`. PNG is lossless with the alpha
 * channel dropped (the page is opaque); JPEG at quality 80. sharp embeds no
 * time stamp or other varying metadata, so the bytes depend on the SVG alone.
 */
export async function renderScreenshot(section: string, svg: string, mediaType: 'image/png' | 'image/jpeg', share: ImageShare = NO_SHARE): Promise<Screenshot> {
  // Text from cached glyphs when it needs no shaping (text-raster.ts); else, or when a glyph could not
  // be measured, the whole SVG through librsvg.
  const pixels = await rasterize(svg, CANVAS, share).catch(() => null);
  const bytes = await imageWork(() => {
    const image = pixels
      ? sharp(pixels, { raw: { width: SCREENSHOT_PIXELS.width, height: SCREENSHOT_PIXELS.height, channels: 3 } })
      : sharp(Buffer.from(svg, 'utf8')).removeAlpha();
    return mediaType === 'image/png' ? image.png({ compressionLevel: 1 }).toBuffer() : image.jpeg({ quality: 80 }).toBuffer();
  }, share);
  return { section, media_type: mediaType, bytes };
}
