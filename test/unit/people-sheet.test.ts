/**
 * The spreadsheet rules every interface shares (src/domain/people-sheet.ts):
 * the URL column by its header in any common spelling, URLs without a scheme,
 * wrong kinds of URLs each with its own message, rows as the spreadsheet
 * shows them with the value quoted, other columns kept or ignored; and the
 * client package's copy of the rules is written from them by its build.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeProfileUrl } from '../../src/domain/profile-url.js';
import { batchKey, batchesOf, profileUrlOf, readPeopleSheet } from '../../src/domain/people-sheet.js';
import { SHEET_SOURCE, writeClientSheet } from '../../scripts/client-sheet.mjs';

const URL = 'https://www.linkedin.com/in/jane-doe';

describe('people spreadsheet rules', () => {
  const spellings = [
    'LinkedIn URL',
    'linkedin url',
    'LinkedIn',
    'Profile',
    'Profile URL',
    'profile_url',
    'URL',
    'pronet_url',
    'LinkedIn-Profil',
    'Profil',
    'Profil-URL',
    'URL du profil',
    'Lien LinkedIn',
    'Perfil',
    'URL de LinkedIn',
    'URL del perfil',
    'Perfil de LinkedIn',
    '  LINKEDIN   URL ',
  ];
  for (const header of spellings) {
    test(`the URL column is found by the header “${header}”`, () => {
      const sheet = readPeopleSheet([
        ['Name', header, 'Department'],
        ['Jane', URL, 'Sales'],
      ]);
      assert.deepEqual(sheet.problems, []);
      assert.deepEqual(
        sheet.people.map((p) => [p.row, p.pronet_url, p.name]),
        [[2, URL, 'Jane']],
      );
    });
  }

  test('headers are compared without accents or case: “Perfíl”, “URL DU PROFÍL”, “Profil-Lien” as typed with accents', () => {
    for (const header of ['Perfíl', 'URL DU PROFÍL', 'Lién du profil', 'URL dél perfil']) {
      assert.deepEqual(readPeopleSheet([[header], [URL]]).problems, [], header);
    }
  });

  test('name, title and headline are found in the four languages too', () => {
    const sheet = readPeopleSheet([
      ['Nombre completo', 'Intitulé du poste', 'Schlagzeile', 'LinkedIn URL'],
      ['Ana', 'CTO', 'Builds', URL],
    ]);
    assert.deepEqual(sheet.people, [{ row: 2, pronet_url: URL, name: 'Ana', title: 'CTO', headline: 'Builds' }]);
  });

  test('a name split into first and last name columns (as HR tools export it) is joined, and the two are not kept as imported columns', () => {
    const keep = { columns: 10, name: 40, value: 200 };
    const sheet = readPeopleSheet(
      [
        ['Employee ID', 'First Name', 'Last Name', 'LinkedIn URL', 'Department'],
        ['E1', 'Klara', 'Weber', URL, 'Sales'],
        ['E2', '', 'Solo', URL, 'Sales'],
      ],
      { keep },
    );
    assert.deepEqual(
      sheet.people.map((p) => ({ name: p.name, columns: p.columns })),
      [
        { name: 'Klara Weber', columns: { 'Employee ID': 'E1', Department: 'Sales' } },
        { name: 'Solo', columns: { 'Employee ID': 'E2', Department: 'Sales' } },
      ],
    );
    const french = readPeopleSheet([
      ['Prénom', 'Nom', 'Profil LinkedIn'],
      ['Ana', 'Lopez', URL],
    ]);
    assert.equal(french.people[0].name, 'Ana Lopez');
  });

  test('a column holding the whole name wins over first and last name columns', () => {
    const sheet = readPeopleSheet([
      ['Full name', 'First name', 'Last name', 'URL'],
      ['Dr. Ana Lopez', 'Ana', 'Lopez', URL],
    ]);
    assert.equal(sheet.people[0].name, 'Dr. Ana Lopez');
  });

  test('when no header fits, the problem names the expected headers and the ones found, on row 1', () => {
    const sheet = readPeopleSheet([
      ['Employee', 'Team'],
      ['Jane', 'Sales'],
    ]);
    assert.equal(sheet.people.length, 0);
    assert.equal(sheet.problems.length, 1);
    assert.equal(sheet.problems[0].row, 1);
    assert.match(sheet.problems[0].message, /No column of the header holds the profile URLs: name it “LinkedIn URL”, “Profile URL”, “URL”/);
    assert.match(sheet.problems[0].message, /the header has “Employee”, “Team”/);
  });

  test('of several fitting headers the one holding profile URLs is used, the others are candidates the user may choose', () => {
    const records = [
      ['URL', 'LinkedIn', 'Team'],
      ['https://acme.example/jane', URL, 'Sales'],
    ];
    const sheet = readPeopleSheet(records, { keep: { columns: 10, name: 40, value: 200 } });
    assert.deepEqual(sheet.urlColumns, { candidates: ['URL', 'LinkedIn'], chosen: 'LinkedIn' });
    assert.equal(sheet.people[0].pronet_url, URL);
    assert.deepEqual(sheet.people[0].columns, { URL: 'https://acme.example/jane', Team: 'Sales' }, 'the other candidate is kept as a column');
    const chosen = readPeopleSheet(records, { urlColumn: 'url' });
    assert.equal(chosen.urlColumns?.chosen, 'URL');
    assert.equal(chosen.people[0].pronet_url, 'https://acme.example/jane');
    const unknown = readPeopleSheet(records, { urlColumn: 'Profile' });
    assert.match(unknown.problems[0].message, /^No column is named “Profile”; the header has “URL”, “LinkedIn”, “Team”\.$/);
  });

  test('URLs without a scheme get https:// and normalize as the profile identity does', () => {
    for (const typed of [
      'www.linkedin.com/in/Jane-Doe/',
      'linkedin.com/in/jane-doe',
      'de.linkedin.com/in/jane-doe?trk=x',
      'HTTP://www.linkedin.com/in/jane-doe',
    ]) {
      const { kind, url } = profileUrlOf(typed);
      assert.equal(kind, 'profile', typed);
      const normal = normalizeProfileUrl(url);
      assert.ok(normal.ok, typed);
      assert.match(normal.url, /^https:\/\/(de\.)?linkedin\.com\/in\/jane-doe$/, typed);
    }
  });

  test('a company page, a post, a search page, a bare host and a non-URL each get their own message', () => {
    const cases: [string, string, RegExp][] = [
      ['https://www.linkedin.com/company/acme/', 'company', /is a company page, not a person's profile/],
      ['linkedin.com/school/uni', 'company', /is a company page/],
      ['https://www.linkedin.com/posts/jane-doe_activity-123', 'post', /is a post, not a person's profile/],
      ['https://www.linkedin.com/feed/update/urn:li:activity:1', 'post', /is a post/],
      ['https://www.linkedin.com/search/results/people/?keywords=jane', 'search', /is a search page, not a person's profile/],
      ['https://www.linkedin.com/', 'not_profile', /is not a person's profile URL/],
      ['Jane Doe', 'not_url', /is not a profile URL \(for example/],
      ['mailto:jane@acme.example', 'not_url', /is not a profile URL/],
    ];
    const records = [['LinkedIn URL'], ...cases.map(([value]) => [value])];
    const sheet = readPeopleSheet(records);
    assert.equal(sheet.problems.length, cases.length);
    cases.forEach(([value, kind, message], i) => {
      assert.equal(profileUrlOf(value).kind, kind, value);
      assert.equal(sheet.problems[i].row, i + 2);
      assert.ok(sheet.problems[i].message.startsWith(`“${value}”`), sheet.problems[i].message);
      assert.match(sheet.problems[i].message, message);
    });
  });

  test('rows are numbered as the spreadsheet shows them: header row 1, blank rows counted; a missing URL is named', () => {
    const sheet = readPeopleSheet([[''], ['Profile', 'Name'], [URL, 'A'], ['', ''], ['', 'Nameless']]);
    assert.deepEqual(
      sheet.people.map((p) => p.row),
      [3, 5],
    );
    assert.deepEqual(sheet.problems, [{ row: 5, message: 'the profile URL is missing.' }]);
  });

  test('a quoted value is cut at 80 characters', () => {
    const long = `not a url ${'y'.repeat(200)}`;
    const [problem] = readPeopleSheet([['URL'], [long]]).problems;
    assert.match(problem.message, /^“not a url y{69}…” is not a profile URL/);
  });

  test('without limits to keep them, other columns are all listed as ignored', () => {
    const sheet = readPeopleSheet([
      ['URL', 'Team', 'Office'],
      [URL, 'Sales', 'Berlin'],
    ]);
    assert.deepEqual(sheet.people, [{ row: 2, pronet_url: URL }]);
    assert.deepEqual(
      sheet.ignored.map((c) => c.column),
      ['Team', 'Office'],
    );
  });

  test('a list is committed as consecutive batches with keys that depend only on the prefix and the position', () => {
    const batches = batchesOf(
      Array.from({ length: 250 }, (_, i) => i),
      100,
    );
    assert.deepEqual(
      batches.map((b) => [b[0], b.length]),
      [
        [0, 100],
        [100, 100],
        [200, 50],
      ],
    );
    assert.equal(batchKey('web-import-abc', 2, 3), 'web-import-abc-3-of-3');
  });

  test("the client package's rules are the domain's, as its build writes them (the client imports nothing of the server)", async () => {
    const read = (path: string) => fs.readFile(fileURLToPath(new globalThis.URL(path, import.meta.url)), 'utf8');
    assert.equal(
      await read('../../packages/client/src/people-sheet.ts'),
      await read('../../src/domain/people-sheet.ts'),
      'run `node scripts/client-sheet.mjs` (the build does) to write packages/client/src/people-sheet.ts from src/domain/people-sheet.ts',
    );
  });

  test("the client's build writes its copy of the rules from the one source", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-sheet-'));
    try {
      const target = path.join(dir, 'people-sheet.ts');
      await fs.writeFile(target, '// stale\n');
      assert.equal(writeClientSheet(target), true);
      assert.equal(await fs.readFile(target, 'utf8'), await fs.readFile(SHEET_SOURCE, 'utf8'));
      assert.equal(writeClientSheet(target), false, 'an up-to-date copy is left as it is');
      const build = await fs.readFile(fileURLToPath(new globalThis.URL('../../scripts/build.mjs', import.meta.url)), 'utf8');
      assert.match(build, /^writeClientSheet\(\);$/m, 'the build writes the copy before it compiles the client');
      const client = JSON.parse(await fs.readFile(fileURLToPath(new globalThis.URL('../../packages/client/package.json', import.meta.url)), 'utf8'));
      assert.match(client.scripts.prebuild, /scripts\/client-sheet\.mjs/, "and so does the client's own build");
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
