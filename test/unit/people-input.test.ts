/** People from a form (src/web/people-input.ts): the separator a spreadsheet used, a byte order mark, headers. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { detectSeparator, parsePeople } from '../../src/web/people-input.js';

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
});
