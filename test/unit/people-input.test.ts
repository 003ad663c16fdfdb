/** People from a form (src/web/people-input.ts): the separator a spreadsheet used, a byte order mark, headers, rows named as the spreadsheet shows them. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { IMPORTED_COLUMN_LIMITS } from '../../src/domain/roster-plan.js';
import { detectSeparator, MAX_PEOPLE, parsePeople, PeopleInputError } from '../../src/web/people-input.js';

const file = (text: string) => Buffer.from(text, 'utf8');

describe('people input', () => {
  test('a semicolon CSV with a byte order mark, as Excel writes it in German or French, keeps commas inside cells', () => {
    const csv = '\uFEFFpronet_url;name;title\r\nhttps://pronet.example/in/jane-doe;Doe, Jane;Leiterin Marketing\r\n';
    assert.deepEqual(parsePeople('', file(csv)).profiles, [
      { pronet_url: 'https://pronet.example/in/jane-doe', name: 'Doe, Jane', title: 'Leiterin Marketing' },
    ]);
  });

  test('a tab-separated paste from a spreadsheet', () => {
    assert.deepEqual(parsePeople('https://pronet.example/in/a\tAda\tCTO\nhttps://pronet.example/in/b\tBob', null).profiles, [
      { pronet_url: 'https://pronet.example/in/a', name: 'Ada', title: 'CTO' },
      { pronet_url: 'https://pronet.example/in/b', name: 'Bob' },
    ]);
  });

  test('a comma CSV whose quoted cells hold semicolons stays comma-separated', () => {
    const csv = 'url,name,headline\nhttps://pronet.example/in/a,Ada,"Builds; ships; learns"\n';
    assert.equal(detectSeparator(csv), ',');
    assert.deepEqual(parsePeople('', file(csv)).profiles, [{ pronet_url: 'https://pronet.example/in/a', name: 'Ada', headline: 'Builds; ships; learns' }]);
  });

  test('one URL per line, no separator at all', () => {
    assert.equal(detectSeparator('https://pronet.example/in/a\n'), ',');
    assert.deepEqual(parsePeople('https://pronet.example/in/a\n\nhttps://pronet.example/in/b', null).profiles, [
      { pronet_url: 'https://pronet.example/in/a' },
      { pronet_url: 'https://pronet.example/in/b' },
    ]);
  });

  test('the separator is decided per input: a pasted comma list and a semicolon file together', () => {
    const people = parsePeople('https://pronet.example/in/a,Ada', file('pronet_url;name\nhttps://pronet.example/in/b;Bob\n'));
    assert.deepEqual(
      people.profiles.map((p) => p.name),
      ['Ada', 'Bob'],
    );
    assert.deepEqual(people.origins, ['Line 1 of the pasted list', 'Row 2'], 'each person is named by where it came from');
  });

  test("a header's other columns are kept per person, their names with spaces collapsed and = written as -", () => {
    const csv = 'url;name;Department;  Cost   center ;a=b\nhttps://pronet.example/in/a;Ada;Engineering;;x\n';
    assert.deepEqual(parsePeople('', file(csv)).profiles, [
      { pronet_url: 'https://pronet.example/in/a', name: 'Ada', columns: { Department: 'Engineering', 'a-b': 'x' } },
    ]);
  });

  test('without a header, cells beyond the four fields are not kept', () => {
    assert.deepEqual(parsePeople('https://pronet.example/in/a,Ada,CTO,Builds,Extra', null).profiles, [
      { pronet_url: 'https://pronet.example/in/a', name: 'Ada', title: 'CTO', headline: 'Builds' },
    ]);
  });

  test('every problem is reported at once, by spreadsheet row (blank rows counted), quoting the value', () => {
    const long = 'x'.repeat(IMPORTED_COLUMN_LIMITS.value + 1);
    const csv = `url,Team\nhttps://pronet.example/in/a,${long}\n\nhttps://pronet.example/company/acme,ok\nhttps://pronet.example/in/c,${long}\n`;
    assert.throws(
      () => parsePeople('https://pronet.example/in/pasted\nnot a url', file(csv)),
      (error: unknown) => {
        assert.ok(error instanceof PeopleInputError);
        assert.equal(error.problems.length, 4, error.problems.join('\n'));
        assert.match(error.problems[0], /^Line 2 of the pasted list: “not a url” is not a profile URL/);
        assert.match(error.problems[1], new RegExp(`^Row 2: the “Team” value “x{79}…” is longer than ${IMPORTED_COLUMN_LIMITS.value} characters\\.$`));
        assert.match(error.problems[2], /^Row 4: “https:\/\/pronet\.example\/company\/acme” is a company page, not a person's profile/);
        assert.match(error.problems[3], /^Row 5: the “Team” value/);
        return true;
      },
    );
  });

  test('columns beyond the limit, repeated or with too long a name are listed as ignored, not refused', () => {
    const headers = Array.from({ length: IMPORTED_COLUMN_LIMITS.columns + 1 }, (_, i) => `c${i}`);
    const longName = 'n'.repeat(IMPORTED_COLUMN_LIMITS.name + 1);
    const input = parsePeople('', file(`url,${headers.join(',')},C0,${longName}\nhttps://pronet.example/in/a,v\n`));
    assert.deepEqual(input.profiles, [{ pronet_url: 'https://pronet.example/in/a', columns: { c0: 'v' } }]);
    assert.deepEqual(
      input.ignored.map((c) => c.column),
      [`c${IMPORTED_COLUMN_LIMITS.columns}`, 'C0', longName],
    );
    assert.match(input.ignored[0].reason, /at most 10 other columns are kept/);
    assert.match(input.ignored[1].reason, /appears twice/);
  });

  test('a file with more people than one web import holds is refused with the count', () => {
    const rows = Array.from({ length: MAX_PEOPLE + 1 }, (_, i) => `https://pronet.example/in/p-${i}`).join('\n');
    assert.throws(
      () => parsePeople(rows, null),
      (error: unknown) =>
        error instanceof PeopleInputError &&
        error.problems[0] === `At most ${MAX_PEOPLE} people at a time (you sent ${MAX_PEOPLE + 1}); add the rest in a second import.`,
    );
  });
});
