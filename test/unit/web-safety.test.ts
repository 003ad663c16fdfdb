/** Pure pieces of the web workspace's safety: where `?next=` may lead, CSV cells a spreadsheet would run, placeholders. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fillCompanyPlaceholders } from '../../src/domain/recommendation-text.js';
import { safeNext } from '../../src/web/paths.js';
import { peopleCsv } from '../../src/web/people-csv.js';
import { EMPTY_CONTRIBUTION } from '../../src/domain/analysis-aggregate.js';

test('safeNext: whatever the input, the result is a path of this site', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (input) => {
      const next = safeNext(input);
      assert.ok(next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\'), JSON.stringify(input));
      assert.equal(new URL(next, 'https://site.test').origin, 'https://site.test');
    }),
    { numRuns: 2000 },
  );
  for (const evil of ['//evil.test', '/\\evil.test', 'https://evil.test', ' //evil.test', '/\t/evil.test', '/\n/evil.test', 'http:evil.test']) {
    assert.equal(safeNext(evil), '/reports', JSON.stringify(evil));
  }
  assert.equal(safeNext('/reports/1?x=2'), '/reports/1?x=2');
});

test('people CSV: cells a spreadsheet would run as a formula are neutralized', () => {
  const person = {
    profile_id: 'p',
    pronet_url: 'https://pronet.example/in/x',
    display_name: '=HYPERLINK("http://evil.test","click")',
    name_source: 'supplied' as const,
    title: '+1',
    headline: '@SUM(A1)',
    columns: { Team: '-2+3' },
    status: 'scan_queued',
    rescanning: false,
    score_pct: null,
    weighted_score_pct: null,
    captured_at: null,
    observed: {},
    good: 0,
    optimize: 0,
    unknown: 0,
    outcomes: null,
    fix_first: [],
    warning: false,
    restricted: false,
    contribution: EMPTY_CONTRIBUTION,
  };
  for (const columns of ['human', 'machine'] as const) {
    const row = peopleCsv({ people: [person], companyName: 'Acme', columns }).split('\r\n')[1];
    assert.match(row, /^"'=HYPERLINK\(""http:\/\/evil\.test"",""click""\)",[A-Za-z]+,'\+1,'@SUM\(A1\),/, columns);
    assert.match(row, columns === 'human' ? /,Queued,/ : /,scan_queued,/);
    assert.match(row, /,'-2\+3(,|\r?$)/, 'an imported column is escaped too');
  }
});

test('recommendations name the company in place of [company name] and {company}', () => {
  assert.equal(fillCompanyPlaceholders('Mention [company name] and {company}.', 'Acme'), 'Mention Acme and Acme.');
});
