/** People from a form (src/web/people-input.ts): the separator a spreadsheet used, a byte order mark, headers. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { IMPORTED_COLUMN_LIMITS } from '../../src/domain/roster-plan.js';
import { detectSeparator, parsePeople, PeopleInputError } from '../../src/web/people-input.js';

const file = (text: string) => Buffer.from(text, 'utf8');

describe('people input', () => {
  test('a semicolon CSV with a byte order mark, as Excel writes it in German or French, keeps commas inside cells', () => {
    const csv = '\uFEFFpronet_url;name;title\r\nhttps://pronet.example/in/jane-doe;Doe, Jane;Leiterin Marketing\r\n';
    assert.deepEqual(parsePeople('', file(csv)), [{ pronet_url: 'https://pronet.example/in/jane-doe', name: 'Doe, Jane', title: 'Leiterin Marketing' }]);
  });

  test('a tab-separated paste from a spreadsheet', () => {
    assert.deepEqual(parsePeople('https://pronet.example/in/a\tAda\tCTO\nhttps://pronet.example/in/b\tBob', null), [
      { pronet_url: 'https://pronet.example/in/a', name: 'Ada', title: 'CTO' },
      { pronet_url: 'https://pronet.example/in/b', name: 'Bob' },
    ]);
  });

  test('a comma CSV whose quoted cells hold semicolons stays comma-separated', () => {
    const csv = 'url,name,headline\nhttps://pronet.example/in/a,Ada,"Builds; ships; learns"\n';
    assert.equal(detectSeparator(csv), ',');
    assert.deepEqual(parsePeople('', file(csv)), [{ pronet_url: 'https://pronet.example/in/a', name: 'Ada', headline: 'Builds; ships; learns' }]);
  });

  test('one URL per line, no separator at all', () => {
    assert.equal(detectSeparator('https://pronet.example/in/a\n'), ',');
    assert.deepEqual(parsePeople('https://pronet.example/in/a\n\nhttps://pronet.example/in/b', null), [
      { pronet_url: 'https://pronet.example/in/a' },
      { pronet_url: 'https://pronet.example/in/b' },
    ]);
  });

  test('the separator is decided per input: a pasted comma list and a semicolon file together', () => {
    const people = parsePeople('https://pronet.example/in/a,Ada', file('pronet_url;name\nhttps://pronet.example/in/b;Bob\n'));
    assert.deepEqual(
      people.map((p) => p.name),
      ['Ada', 'Bob'],
    );
  });

  test("a header's other columns are kept per person, their names with spaces collapsed and = written as -", () => {
    const csv = 'url;name;Department;  Cost   center ;a=b\nhttps://pronet.example/in/a;Ada;Engineering;;x\n';
    assert.deepEqual(parsePeople('', file(csv)), [
      { pronet_url: 'https://pronet.example/in/a', name: 'Ada', columns: { Department: 'Engineering', 'a-b': 'x' } },
    ]);
  });

  test('without a header, cells beyond the four fields are not kept', () => {
    assert.deepEqual(parsePeople('https://pronet.example/in/a,Ada,CTO,Builds,Extra', null), [
      { pronet_url: 'https://pronet.example/in/a', name: 'Ada', title: 'CTO', headline: 'Builds' },
    ]);
  });

  test('every problem with imported columns is reported at once, by person, without the values', () => {
    const long = 'x'.repeat(IMPORTED_COLUMN_LIMITS.value + 1);
    const csv = `url,Team,team\nhttps://pronet.example/in/a,${long}\nhttps://pronet.example/in/b,ok\nhttps://pronet.example/in/c,${long}\n`;
    assert.throws(
      () => parsePeople('https://pronet.example/in/pasted', file(csv)),
      (error: unknown) => {
        assert.ok(error instanceof PeopleInputError);
        assert.deepEqual(error.problems, [
          'The column “team” appears twice in the header.',
          `Person 2: the column “Team” is longer than ${IMPORTED_COLUMN_LIMITS.value} characters.`,
          `Person 4: the column “Team” is longer than ${IMPORTED_COLUMN_LIMITS.value} characters.`,
        ]);
        assert.ok(!error.problems.join(' ').includes(long));
        return true;
      },
    );
  });

  test('more imported columns than the limit are refused, with their count', () => {
    const headers = Array.from({ length: IMPORTED_COLUMN_LIMITS.columns + 2 }, (_, i) => `c${i}`);
    assert.throws(
      () => parsePeople('', file(`url,${headers.join(',')}\nhttps://pronet.example/in/a\n`)),
      (error: unknown) => error instanceof PeopleInputError && /^The header has 12 columns besides/.test(error.problems[0]),
    );
  });
});
