/**
 * The areas a person page outlines on an evidence card (domain/evidence-areas.ts)
 * are where the card really draws each subject (scanning/evidence-cards/card-svg.ts),
 * and only rendered cards get one.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CollectedActivityEvent, CollectedProfile } from '../../src/domain/collected.js';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { CARD_AREAS, CARD_UNITS, markedArea, type EvidenceArea } from '../../src/domain/evidence-areas.js';
import { aboutSvg, activitySvg, experienceSvg, skillsSvg, topCardSvg } from '../../src/scanning/evidence-cards/card-svg.js';
import { JANE_POST, JANE_PROFILE } from '../support/profiles.js';

const look = { observedAt: '2026-10-30T14:05:59.123Z' };

const PROFILE: CollectedProfile = {
  ...JANE_PROFILE,
  // Long enough to take every line the card gives each subject.
  headline: 'Head of Partnerships at Globex, helping revenue teams across Europe grow their pipeline with partners they trust every day',
  about: 'Helping revenue teams grow pipeline. '.repeat(20),
  positions: Array.from({ length: 6 }, (_, i) => ({ title: `Position ${i}`, company: 'Globex', start: '2021-03', end: null, description: 'Partner programs' })),
  skills: Array.from({ length: 30 }, (_, i) => `Skill ${i}`),
};

const EVENTS: CollectedActivityEvent[] = Array.from({ length: 5 }, (_, i) => ({ ...JANE_POST, external_id: `e${i}` }));

interface DrawnText {
  x: number;
  y: number;
  size: number;
  content: string;
}

/** The left-aligned texts of a card (end- and middle-anchored ones are labels beside the subjects). */
function texts(svg: string): DrawnText[] {
  return [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)]
    .filter((m) => !m[1].includes('text-anchor'))
    .map((m) => ({
      x: Number(/x="([\d.]+)"/.exec(m[1])![1]),
      y: Number(/y="([\d.]+)"/.exec(m[1])![1]),
      size: Number(/font-size="([\d.]+)"/.exec(m[1])![1]),
      content: m[2],
    }));
}

/** The text's ink (cap height above the baseline, descenders below) lies in the area. */
function assertInside(text: DrawnText, area: EvidenceArea): void {
  const box = CARD_AREAS[area];
  const top = text.y - text.size * 0.8;
  const bottom = text.y + text.size * 0.25;
  assert.ok(
    text.x >= box.x && text.x < box.x + box.width && top >= box.y && bottom <= box.y + box.height,
    `"${text.content}" (x ${text.x}, ${top.toFixed(1)}–${bottom.toFixed(1)}) is outside ${area} (${box.x},${box.y} ${box.width}×${box.height})`,
  );
}

function drawn(svg: string, matches: (content: string) => boolean): DrawnText[] {
  const found = texts(svg).filter((t) => matches(t.content));
  assert.ok(found.length > 0, 'the subject is drawn');
  return found;
}

describe('evidence areas', () => {
  test('every text of a top card lies inside the area of its subject, with a headline of two lines and of one', () => {
    for (const headline of [PROFILE.headline, 'Head of Partnerships']) {
      const svg = topCardSvg({ ...PROFILE, headline }, look);
      for (const t of drawn(svg, (c) => c === 'Jane Doe')) assertInside(t, 'name');
      for (const t of drawn(svg, (c) => c.startsWith('Head of Partnerships') || c.includes('pipeline'))) assertInside(t, 'headline');
      for (const t of drawn(svg, (c) => c === 'Lisbon, Portugal')) assertInside(t, 'location');
      for (const t of drawn(svg, (c) => c === '812 connections')) assertInside(t, 'connections');
      for (const t of drawn(svg, (c) => c === '1,204 followers')) assertInside(t, 'followers');
    }
  });

  test('what a top card writes for values it did not observe lies inside the same areas', () => {
    const svg = topCardSvg({ ...PROFILE, name: null, headline: null, location: null, connections: null, followers: null }, look);
    for (const [subject, area] of [
      ['Name', 'name'],
      ['Headline', 'headline'],
      ['Location', 'location'],
      ['Connections', 'connections'],
      ['Followers', 'followers'],
    ] as const) {
      for (const t of drawn(svg, (c) => c === `${subject} not observed`)) assertInside(t, area);
    }
  });

  test('the photo placeholder and the banner band are drawn from their areas', () => {
    const svg = topCardSvg(PROFILE, look);
    const { photo, banner } = CARD_AREAS;
    assert.ok(svg.includes(`<circle cx="${photo.x + photo.width / 2}" cy="${photo.y + photo.height / 2}" r="${photo.width / 2}"`));
    assert.ok(svg.includes(`V ${banner.y + 10} `) && svg.includes(`M ${banner.x} ${banner.y + banner.height} `), 'the band spans the banner area');
  });

  test('the about text, featured items, positions, skills and events lie inside their areas', () => {
    const about = aboutSvg(PROFILE, look);
    for (const t of drawn(about, (c) => c.startsWith('Helping'))) assertInside(t, 'about_text');
    for (const t of drawn(about, (c) => c.startsWith('Featured'))) assertInside(t, 'featured');
    for (const t of drawn(experienceSvg(PROFILE, look), (c) => /^Position|^Globex|^2021-03|^Partner/.test(c))) assertInside(t, 'positions');
    for (const t of drawn(skillsSvg(PROFILE, look), (c) => c.startsWith('• Skill') || c.includes('skills listed'))) assertInside(t, 'skills');
    for (const t of drawn(activitySvg('Jane Doe', EVENTS, look), (c) => c.startsWith('Jane Doe posted') || c.startsWith('We shipped')))
      assertInside(t, 'events');
  });

  test('the text areas of a top card do not overlap, so an outline points at one subject', () => {
    const rows = (['name', 'headline', 'location', 'connections', 'followers'] as const).map((area) => CARD_AREAS[area]);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].y + rows[i - 1].height <= rows[i].y, `${rows[i - 1].label} ends above ${rows[i].label}`);
  });

  test('every area lies on the card', () => {
    for (const [name, box] of Object.entries(CARD_AREAS)) {
      assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= CARD_UNITS.width && box.y + box.height <= CARD_UNITS.height, name);
    }
  });

  test("a check's evidence section is the section of its area", () => {
    const withEvidence = CHECKS.filter((c) => c.evidence_area !== null);
    assert.ok(withEvidence.length > 20);
    for (const check of CHECKS) {
      assert.equal(check.evidence_section, check.evidence_area === null ? null : CARD_AREAS[check.evidence_area].section, check.key);
    }
  });

  test('only a rendered card of the area’s section gets an outline', () => {
    assert.equal(markedArea({ origin: 'rendered', section: 'top_card' }, 'headline'), CARD_AREAS.headline);
    assert.equal(markedArea({ origin: 'captured', section: 'top_card' }, 'headline'), null, 'a capture is not outlined');
    assert.equal(markedArea({ origin: 'rendered', section: 'about' }, 'headline'), null, 'a card of another section is not outlined');
    assert.equal(markedArea({ origin: 'rendered', section: 'top_card' }, null), null);
  });
});
