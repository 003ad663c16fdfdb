/**
 * Evidence cards (src/scanning/evidence-cards/): drawn from the observed
 * values only, unknowns written as not observed, every card saying it was
 * rendered, not captured; which sections get one; real PNG images.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import type { CollectedProfile, CollectResult } from '../../src/domain/collected.js';
import {
  aboutSvg,
  activitySvg,
  CARD_PIXELS,
  companySvg,
  escapeXml,
  experienceSvg,
  NOT_OBSERVED,
  observedLabel,
  skillsSvg,
  topCardSvg,
  wrap,
} from '../../src/scanning/evidence-cards/card-svg.js';
import { cardSvgs, renderEvidenceCards } from '../../src/scanning/evidence-cards/render-cards.js';
import { JANE_POST as EVENT, JANE_PROFILE as PROFILE } from '../support/profiles.js';

type Ok = Extract<CollectResult, { outcome: 'ok' }>;
const look = { observedAt: '2026-10-30T14:05:59.123Z' };

const UNKNOWN_PROFILE: CollectedProfile = Object.fromEntries(Object.keys(PROFILE).map((k) => [k, null])) as unknown as CollectedProfile;

function result(overrides: Partial<Ok>): Ok {
  return {
    outcome: 'ok',
    profile: PROFILE,
    activity: null,
    company: null,
    screenshots: [],
    missing_sections: [],
    captured_at: look.observedAt,
    ...overrides,
  };
}

/** The visible text of an SVG, its elements joined by newlines. */
function textOf(svg: string): string {
  return [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/gu)].map((m) => m[1]).join('\n');
}

describe('evidence cards: which sections get one', () => {
  test('full_profile: the top card and every section with observed data; activity mode: the activity; a company page: the company', () => {
    assert.deepEqual(
      cardSvgs({ kind: 'person', mode: 'full_profile' }, result({})).map((c) => c.section),
      ['top_card', 'about', 'experience', 'skills'],
    );
    assert.deepEqual(
      cardSvgs({ kind: 'person', mode: 'activity' }, result({ activity: [EVENT] })).map((c) => c.section),
      ['activity'],
    );
    const company = { name: 'Acme', tagline: null, industry: null, follower_count: null, website: null };
    assert.deepEqual(
      cardSvgs({ kind: 'company_page', mode: 'full_profile' }, result({ profile: null, company })).map((c) => c.section),
      ['company'],
    );
  });

  test('a section whose data was not observed, or that the collector reports missing, gets no card', () => {
    const sections = cardSvgs(
      { kind: 'person', mode: 'full_profile' },
      result({ profile: { ...PROFILE, positions: null, skills: null, about: null, featured_count: null } }),
    ).map((c) => c.section);
    assert.deepEqual(sections, ['top_card']);
    assert.deepEqual(
      cardSvgs({ kind: 'person', mode: 'full_profile' }, result({ missing_sections: ['skills'] })).map((c) => c.section),
      ['top_card', 'about', 'experience'],
    );
    assert.deepEqual(cardSvgs({ kind: 'person', mode: 'full_profile' }, result({ profile: UNKNOWN_PROFILE })), []);
    assert.deepEqual(cardSvgs({ kind: 'person', mode: 'activity' }, result({ activity: null })), []);
  });

  test('a section the collector sent a screenshot of gets no card; an image the record links to does not replace the card', () => {
    const shot = { section: 'about', media_type: 'image/png' as const, bytes: Buffer.from('x') };
    const sections = cardSvgs(
      { kind: 'person', mode: 'full_profile' },
      result({ screenshots: [shot], linked_images: [{ section: 'top_card', url: 'https://media.licdn.com/photo.jpg' }] }),
    ).map((c) => c.section);
    assert.deepEqual(sections, ['top_card', 'experience', 'skills']);
  });
});

describe('evidence cards: honest about what was observed', () => {
  test('every card says at its foot that it was rendered from data observed at the capture time, not a screenshot', () => {
    assert.equal(observedLabel(look.observedAt), '2026-10-30 14:05 UTC');
    const company = { name: 'Acme', tagline: null, industry: null, follower_count: null, website: null };
    for (const svg of [
      topCardSvg(PROFILE, look),
      aboutSvg(PROFILE, look),
      experienceSvg(PROFILE, look),
      skillsSvg(PROFILE, look),
      activitySvg('Jane Doe', [EVENT], look),
      companySvg(company, null, look),
    ]) {
      assert.ok(textOf(svg).includes('Evidence card rendered from data observed 2026-10-30 14:05 UTC. Not a screenshot.'), svg);
    }
  });

  test('the values shown are the observed ones: name, headline, location, counts; the photo and banner are told, never drawn', () => {
    const text = textOf(topCardSvg(PROFILE, look));
    for (const value of [
      'Jane Doe',
      'Head of Partnerships at Globex',
      'Lisbon, Portugal',
      '812 connections',
      '1,204 followers',
      'Photo: yes · Banner: default',
    ])
      assert.ok(text.includes(value), value);
    const svg = topCardSvg(PROFILE, look);
    assert.ok(!svg.includes('<image') && !svg.includes('<path d="M 100 205'), 'no drawn face or picture');
  });

  test('unknown values are written as not observed, never invented (top card, about, experience, skills, activity, company)', () => {
    const top = textOf(topCardSvg(UNKNOWN_PROFILE, look));
    for (const value of ['Name', 'Headline', 'Location', 'Connections', 'Followers']) assert.ok(top.includes(`${value} ${NOT_OBSERVED}`), value);
    assert.ok(top.includes(`Photo: ${NOT_OBSERVED} · Banner: ${NOT_OBSERVED}`), top);
    assert.ok(textOf(aboutSvg({ ...PROFILE, about: null, featured_count: null }, look)).includes(`About text ${NOT_OBSERVED}.`));
    assert.ok(textOf(aboutSvg({ ...PROFILE, featured_count: null }, look)).includes(`Featured items ${NOT_OBSERVED}`));
    assert.ok(textOf(experienceSvg({ ...PROFILE, positions: null }, look)).includes(`Positions ${NOT_OBSERVED}.`));
    assert.ok(textOf(skillsSvg({ ...PROFILE, skills: null }, look)).includes(`Skills ${NOT_OBSERVED}.`));
    const activity = textOf(activitySvg(null, [{ ...EVENT, text: null, occurred_at: null, actor: { ...EVENT.actor, name: null } }], look));
    for (const value of [`Text ${NOT_OBSERVED}`, `date ${NOT_OBSERVED}`, `comments ${NOT_OBSERVED}`, 'Name not observed posted', '12 reactions', '0 reposts'])
      assert.ok(activity.includes(value), value);
    const company = textOf(companySvg({ name: null, tagline: null, industry: null, follower_count: null, website: null }, null, look));
    for (const value of ['Name', 'Tagline', 'Industry', 'Followers', 'Website']) assert.ok(company.includes(`${value} ${NOT_OBSERVED}`), value);
  });

  test('an observed empty value is shown as empty, not as unknown', () => {
    assert.ok(textOf(topCardSvg({ ...PROFILE, headline: '' }, look)).includes('No headline'));
    assert.ok(textOf(aboutSvg({ ...PROFILE, about: '' }, look)).includes('No about text.'));
    assert.ok(textOf(experienceSvg({ ...PROFILE, positions: [] }, look)).includes('No positions listed.'));
    assert.ok(textOf(skillsSvg({ ...PROFILE, skills: [] }, look)).includes('No skills listed.'));
    assert.ok(textOf(activitySvg('Jane Doe', [], look)).includes('No recent activity.'));
  });

  test('each section holds its own text: about, positions, skills, activity, company', () => {
    const about = textOf(aboutSvg(PROFILE, look));
    for (const word of ['Helping', 'revenue', 'pipeline.', 'compare', 'notes.', 'Featured · 2 items']) assert.ok(about.includes(word), word);
    const positions = [
      { title: 'Head of Partnerships', company: 'Globex', start: '2021-03', end: null, description: null },
      { title: 'Recruiter', company: null, start: null, end: '2021-02', description: 'Hired the first ten engineers.' },
    ];
    const experience = textOf(experienceSvg({ ...PROFILE, positions }, look));
    for (const text of ['Head of Partnerships', 'Globex', '2021-03 – present', 'Recruiter', 'Company not shown', 'Hired the first ten engineers.'])
      assert.ok(experience.includes(text), text);
    const skills = textOf(skillsSvg({ ...PROFILE, skills: ['SQL', 'Public Speaking', 'Go-to-Market'] }, look));
    for (const skill of ['• SQL', '• Public Speaking', '• Go-to-Market', '3 skills listed']) assert.ok(skills.includes(skill), skill);
    const activity = textOf(activitySvg('Jane Doe', [EVENT], look));
    for (const text of ['Jane Doe posted', '2026-10-28', 'We shipped the partner portal today.']) assert.ok(activity.includes(text), text);
    const company = textOf(
      companySvg(
        { name: 'Acme Corp', tagline: 'Ship faster with Acme Corp', industry: 'Retail', follower_count: 12345, website: 'https://acme.example' },
        [],
        look,
      ),
    );
    for (const text of ['Acme Corp', 'Ship faster with Acme Corp', 'Retail', '12,345 followers', 'https://acme.example', 'No recent posts.'])
      assert.ok(company.includes(text), text);
  });

  test('markup and characters XML cannot carry are escaped in every card, and the SVG still renders', async () => {
    const hostile = '<script>alert("x")</script> & <b>Bob</b> O\'Brien \u0000\u0007\ud800';
    const svgs = [
      topCardSvg({ ...PROFILE, name: hostile, headline: hostile, location: hostile }, look),
      aboutSvg({ ...PROFILE, name: hostile, about: hostile }, look),
      experienceSvg({ ...PROFILE, name: hostile, positions: [{ title: hostile, company: hostile, start: null, end: null, description: hostile }] }, look),
      skillsSvg({ ...PROFILE, name: hostile, skills: [hostile] }, look),
      activitySvg(hostile, [{ ...EVENT, text: hostile, actor: { ...EVENT.actor, name: hostile } }], look),
      companySvg({ name: hostile, tagline: hostile, industry: hostile, follower_count: 1, website: hostile }, [{ ...EVENT, text: hostile }], look),
      topCardSvg(PROFILE, { observedAt: hostile }),
    ];
    for (const svg of svgs) {
      assert.ok(!svg.includes('<script') && !svg.includes('<b>') && !svg.includes('\u0000') && !svg.includes('\u0007'));
      assert.ok(svg.includes('&lt;script&gt;'), svg);
      assert.doesNotMatch(svg, /[\ud800-\udfff]/u);
      // librsvg refuses malformed XML: rendering proves the document is well-formed.
      const { info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height], [CARD_PIXELS.width, CARD_PIXELS.height]);
    }
    assert.equal(escapeXml(`a<b>&"'`), 'a&lt;b&gt;&amp;&quot;&apos;');
    assert.equal(escapeXml('x\u0000y\ud800z\uffff😀'), 'x\ufffdy\ufffdz\ufffd😀');
  });

  test('text is wrapped to the width and cut with an ellipsis when it does not fit', () => {
    const lines = wrap('one two three four five six seven eight nine ten', 10, 3);
    assert.deepEqual(lines, ['one two', 'three four', 'five six…']);
    assert.ok(lines.every((l) => Array.from(l).length <= 10));
    assert.deepEqual(wrap('short', 10, 3), ['short']);
    assert.deepEqual(wrap('', 10, 3), []);
    assert.deepEqual(wrap('abcdefghijklmnop', 10, 2), ['abcdefghi…']);
  });
});

describe('evidence cards: images', () => {
  test('cards are real PNG images at their raster size (640x360), byte-identical for the same data, in any script', async () => {
    const data = result({ profile: { ...PROFILE, name: 'محمد علي' } });
    const cards = await renderEvidenceCards({ kind: 'person', mode: 'full_profile' }, data);
    const again = await renderEvidenceCards({ kind: 'person', mode: 'full_profile' }, data);
    assert.equal(cards.length, 4);
    for (const [i, card] of cards.entries()) {
      assert.equal(card.media_type, 'image/png');
      assert.equal((await fileTypeFromBuffer(card.bytes))?.mime, 'image/png');
      const { info } = await sharp(card.bytes).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height], [CARD_PIXELS.width, CARD_PIXELS.height]);
      assert.ok(card.bytes.equals(again[i].bytes), card.section);
      assert.ok(card.bytes.length < 200 * 1024, `${card.section}: ${card.bytes.length} bytes`);
    }
  });
});
