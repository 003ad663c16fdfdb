/**
 * Contract 4.4 rule 2, 4.8, section 3 and decisions "Identity and
 * normalization" / "Removal and restore": duplicates in a batch keep the
 * first occurrence; a URL already active on the roster is `already_present`;
 * a removed attachment of the same identity is restored (same id); all of it
 * uses the normalized-URL identity.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { normalizeProfileUrl } from '../../src/domain/profile-url.js';
import { normalizeRows, planRoster, type ExistingAttachment, type SubmittedProfile } from '../../src/domain/roster-plan.js';

const ID_ACTIVE = '11111111-1111-4111-8111-111111111111';
const ID_REMOVED = '22222222-2222-4222-8222-222222222222';

function plan(profiles: SubmittedProfile[], existing: Map<string, ExistingAttachment> = new Map()) {
  const { urls, problems } = normalizeRows(profiles);
  assert.deepEqual(problems, []);
  return planRoster(profiles, urls, existing);
}

const p = (pronet_url: string): SubmittedProfile => ({ pronet_url });

describe('roster plan — examples', () => {
  test('contract 4.4/4.8: new people are added, with the normalized URL', () => {
    const rows = plan([p('http://WWW.pronet.example/in/Jane/?trk=1'), p('https://pronet.example/in/bob')]);
    assert.deepEqual(
      rows.map((r) => [r.row_number, r.status, r.url]),
      [
        [1, 'add', 'https://pronet.example/in/jane'],
        [2, 'add', 'https://pronet.example/in/bob'],
      ],
    );
    assert.equal(rows[0].existing_id, undefined);
    assert.equal(rows[0].duplicate_of_row, undefined);
  });

  test('contract 4.4 rule 2: duplicates keep the first occurrence; later rows get duplicate_of_row', () => {
    const rows = plan([
      p('https://pronet.example/in/jane'),
      p('https://pronet.example/in/bob'),
      p('http://www.pronet.example/in/JANE/'),
      p('https://pronet.example/in/jane#x'),
      p('https://pronet.example/in/bob?a=b'),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.row_number, r.status, r.duplicate_of_row]),
      [
        [1, 'add', undefined],
        [2, 'add', undefined],
        [3, 'duplicate_in_input', 1],
        [4, 'duplicate_in_input', 1],
        [5, 'duplicate_in_input', 2],
      ],
    );
  });

  test('decisions/identity: duplicate detection keeps the first row profile details', () => {
    const rows = plan([
      { pronet_url: 'https://pronet.example/in/jane', name: 'First' },
      { pronet_url: 'https://pronet.example/in/jane/', name: 'Second' },
    ]);
    assert.equal(rows[0].profile.name, 'First');
    assert.equal(rows[0].status, 'add');
    assert.equal(rows[1].status, 'duplicate_in_input');
  });

  test('contract section 3: a URL active on the roster is already_present with existing_id', () => {
    const existing = new Map<string, ExistingAttachment>([['https://pronet.example/in/jane', { id: ID_ACTIVE, status: 'active' }]]);
    const [row] = plan([p('HTTP://www.pronet.example/In/Jane/')], existing);
    assert.equal(row.status, 'already_present');
    assert.equal(row.existing_id, ID_ACTIVE);
  });

  test('decisions/removal: a removed attachment of the same identity is restored (same id)', () => {
    const existing = new Map<string, ExistingAttachment>([['https://pronet.example/in/bob', { id: ID_REMOVED, status: 'removed' }]]);
    const [row] = plan([p('https://www.pronet.example/in/BOB?utm=x')], existing);
    assert.equal(row.status, 'restore');
    assert.equal(row.existing_id, ID_REMOVED);
  });

  test('contract section 3: a duplicate of an existing person is duplicate_in_input, only its first row counts', () => {
    const existing = new Map<string, ExistingAttachment>([
      ['https://pronet.example/in/jane', { id: ID_ACTIVE, status: 'active' }],
      ['https://pronet.example/in/bob', { id: ID_REMOVED, status: 'removed' }],
    ]);
    const rows = plan(
      [p('https://pronet.example/in/jane'), p('https://pronet.example/in/bob'), p('https://pronet.example/in/jane/'), p('https://pronet.example/in/bob/')],
      existing,
    );
    assert.deepEqual(
      rows.map((r) => [r.status, r.existing_id, r.duplicate_of_row]),
      [
        ['already_present', ID_ACTIVE, undefined],
        ['restore', ID_REMOVED, undefined],
        ['duplicate_in_input', undefined, 1],
        ['duplicate_in_input', undefined, 2],
      ],
    );
  });

  test('contract 4.8 rule 1: invalid URL rows reported with row_number and field pronet_url', () => {
    const { urls, problems } = normalizeRows([
      p('https://pronet.example/in/jane'),
      p('ftp://pronet.example/in/bob'),
      p('not a url'),
      p(`https://pronet.example/in/${'a'.repeat(2100)}`),
      p('https://user:pw@pronet.example/in/eve'),
    ]);
    assert.deepEqual(problems, [
      { row_number: 2, field: 'pronet_url', code: 'invalid_url' },
      { row_number: 3, field: 'pronet_url', code: 'invalid_url' },
      { row_number: 4, field: 'pronet_url', code: 'too_long' },
      { row_number: 5, field: 'pronet_url', code: 'invalid_url' },
    ]);
    assert.equal(urls.length, 5);
    assert.equal(urls[0], 'https://pronet.example/in/jane');
  });

  test('contract 4.8 rule 1: rows of the wrong shape are tolerated (left to the schema), not reported twice', () => {
    const rows = [{ pronet_url: 42 }, null, {}, p('https://pronet.example/in/jane')] as unknown as SubmittedProfile[];
    const { urls, problems } = normalizeRows(rows);
    assert.deepEqual(problems, []);
    assert.equal(urls.length, 4);
    assert.equal(urls[3], 'https://pronet.example/in/jane');
  });
});

// ---------- properties ----------

const slug = fc.constantFrom('jane', 'bob', 'eve', 'mallory', 'trent', 'peggy');
/** Profile URLs with many spellings of few identities, so duplicates are common. */
const spelledUrl = fc
  .tuple(
    fc.constantFrom('http://', 'https://', 'HTTPS://'),
    fc.constantFrom('', 'www.', 'WWW.'),
    slug,
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom('', '/', '?trk=x', '#about'),
  )
  .map(
    ([scheme, www, s, upperHost, upperPath, tail]) =>
      `${scheme}${www}${upperHost ? 'PRONET.EXAMPLE' : 'pronet.example'}/in/${upperPath ? s.toUpperCase() : s}${tail}`,
  );
const canonical = (s: string) => `https://pronet.example/in/${s}`;
const existingArb = fc
  .dictionary(slug, fc.constantFrom<'active' | 'removed'>('active', 'removed'), { maxKeys: 6 })
  .map((d) => new Map<string, ExistingAttachment>(Object.entries(d).map(([s, status], i) => [canonical(s), { id: `id-${i}`, status }])));

describe('roster plan — properties', () => {
  test('contract section 3: every row gets exactly one status, consistent with the roster', () => {
    fc.assert(
      fc.property(fc.array(spelledUrl, { minLength: 1, maxLength: 100 }), existingArb, (urls, existing) => {
        const rows = plan(urls.map(p), existing);
        assert.equal(rows.length, urls.length);
        rows.forEach((row, i) => {
          assert.equal(row.row_number, i + 1);
          assert.ok(['add', 'restore', 'already_present', 'duplicate_in_input'].includes(row.status));
          const current = existing.get(row.url);
          if (row.status === 'duplicate_in_input') {
            assert.ok(row.duplicate_of_row !== undefined && row.duplicate_of_row < row.row_number);
            const first = rows[row.duplicate_of_row - 1];
            assert.equal(first.url, row.url);
            assert.notEqual(first.status, 'duplicate_in_input');
            assert.equal(row.existing_id, undefined);
          } else {
            assert.equal(row.duplicate_of_row, undefined);
            assert.equal(row.status, current === undefined ? 'add' : current.status === 'removed' ? 'restore' : 'already_present');
            assert.equal(row.existing_id, current?.id);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  test('contract 4.4 rule 2: non-duplicate rows = distinct normalized URLs, each the first occurrence', () => {
    fc.assert(
      fc.property(fc.array(spelledUrl, { minLength: 0, maxLength: 100 }), existingArb, (urls, existing) => {
        const rows = plan(urls.map(p), existing);
        const distinct = new Set(urls.map((u) => (normalizeProfileUrl(u) as { url: string }).url));
        const firsts = rows.filter((r) => r.status !== 'duplicate_in_input');
        assert.equal(firsts.length, distinct.size);
        assert.equal(new Set(firsts.map((r) => r.url)).size, firsts.length);
        for (const row of firsts)
          assert.equal(
            rows.findIndex((r) => r.url === row.url),
            row.row_number - 1,
          );
      }),
      { numRuns: 200 },
    );
  });
});
