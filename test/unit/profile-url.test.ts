/**
 * decisions "Identity and normalization" — profile identity:
 * absolute http/https URL only; scheme folded to https; host lower-cased
 * with a leading `www.` removed; query and fragment dropped; path
 * percent-decoded, lower-cased, trailing `/` removed. Contract 2.7: URLs max
 * 2048 chars.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MAX_URL_LENGTH, normalizeProfileUrl } from '../../src/domain/profile-url.js';

function ok(input: string): string {
  const result = normalizeProfileUrl(input);
  assert.equal(result.ok, true, `expected ${JSON.stringify(input)} to normalize, got ${JSON.stringify(result)}`);
  return result.url;
}

function problem(input: string): string {
  const result = normalizeProfileUrl(input);
  assert.equal(result.ok, false, `expected ${JSON.stringify(input)} to be rejected, got ${JSON.stringify(result)}`);
  return (result as { ok: false; problem: string }).problem;
}

// ---------- generators ----------

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/).filter((l) => l !== 'www' && !l.includes('--'));
/** A host that does not itself start with `www.`. */
const bareHost = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'net', 'io', 'co.uk', 'de'))
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`);
/** Path segment characters, including percent escapes of reserved and non-ASCII characters. */
const segmentChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~'.split('')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('%20', '%41', '%61', '%7E', '%C3%A9', '%25', '%3F', '%23', '%2F', '%3A', '@', '!', '$', "'", '(', ')', '*', '+', ',', ';', '='),
  },
);
const segment = fc.array(segmentChar, { minLength: 1, maxLength: 8 }).map((cs) => cs.join(''));
const path = fc.array(segment, { minLength: 0, maxLength: 4 }).map((s) => (s.length === 0 ? '' : `/${s.join('/')}`));
/** Only letters/digits/safe escapes: its case variants are identical after lower-casing. */
const plainSegment = fc.stringMatching(/^[a-zA-Z0-9_-]{1,10}$/);
const plainPath = fc.array(plainSegment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`);
const query = fc.oneof(fc.constant(''), fc.stringMatching(/^\?[a-z0-9=&]{0,12}$/));
const fragment = fc.oneof(fc.constant(''), fc.stringMatching(/^#[a-z0-9]{0,8}$/));
const scheme = fc.constantFrom('http', 'https', 'HTTP', 'HTTPS', 'HtTpS');
const port = fc.constantFrom('', '', '', ':80', ':443', ':8080');
const wwwPrefix = fc.constantFrom('', '', 'www.', 'WWW.', 'www.www.');

/** Any UTF-16 string: arbitrary code points, lone surrogates and URL punctuation. */
const anyString = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      fc.constantFrom(':', '/', '//', '%', '%2', '%E0', '?', '#', '@', '.', '[', ']', ' ', '\t', 'www.', 'http://', 'https://'),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

/** Any absolute http(s) profile-like URL, with the variations the rules fold away. */
const anyHttpUrl = fc
  .tuple(scheme, wwwPrefix, bareHost, port, path, fc.boolean(), query, fragment)
  .map(([s, w, h, p, pa, slash, q, f]) => `${s}://${w}${h}${p}${pa}${slash ? '/' : ''}${q}${f}`);

// ---------- examples, one per rule ----------

describe('normalizeProfileUrl — examples', () => {
  test('decisions/identity: scheme folded to https', () => {
    assert.equal(ok('http://pronet.example/in/jane'), 'https://pronet.example/in/jane');
    assert.equal(ok('HTTP://pronet.example/in/jane'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://pronet.example/in/jane'), 'https://pronet.example/in/jane');
  });

  test('decisions/identity: host lower-cased', () => {
    assert.equal(ok('https://ProNet.EXAMPLE/in/jane'), 'https://pronet.example/in/jane');
  });

  test('decisions/identity: leading www. removed from host', () => {
    assert.equal(ok('https://www.pronet.example/in/jane'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://WWW.pronet.example/in/jane'), 'https://pronet.example/in/jane');
    // only a *leading* www. label is removed
    assert.equal(ok('https://eu.www.pronet.example/in/jane'), 'https://eu.www.pronet.example/in/jane');
    assert.equal(ok('https://wwwx.pronet.example/in/jane'), 'https://wwwx.pronet.example/in/jane');
  });

  test('decisions/identity: query and fragment dropped', () => {
    assert.equal(ok('https://pronet.example/in/jane?trk=abc&x=1'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://pronet.example/in/jane#about'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://pronet.example/in/jane?trk=abc#about'), 'https://pronet.example/in/jane');
  });

  test('decisions/identity: path percent-decoded', () => {
    assert.equal(ok('https://pronet.example/in/%6A%61%6E%65'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://pronet.example/in/jane-m%C3%BCller'), ok('https://pronet.example/in/jane-müller'));
    assert.equal(ok('https://pronet.example/in/a%2Db'), 'https://pronet.example/in/a-b');
  });

  test('decisions/identity: path lower-cased', () => {
    assert.equal(ok('https://pronet.example/IN/Jane-Doe'), 'https://pronet.example/in/jane-doe');
    assert.equal(ok('https://pronet.example/in/%4A%41%4E%45'), 'https://pronet.example/in/jane');
  });

  test('decisions/identity: trailing slash removed', () => {
    assert.equal(ok('https://pronet.example/in/jane/'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://pronet.example/in/jane//'), 'https://pronet.example/in/jane');
    assert.equal(ok('https://pronet.example/'), 'https://pronet.example');
    assert.equal(ok('https://pronet.example'), 'https://pronet.example');
  });

  test('decisions/identity: all rules together give one identity', () => {
    const variants = [
      'http://WWW.ProNet.example/In/Jane-Doe/?trk=public#x',
      'https://pronet.example/in/jane-doe',
      'https://www.pronet.example/in/%6Aane-doe/',
      'HTTPS://PRONET.EXAMPLE/IN/JANE-DOE?a=b',
    ];
    for (const v of variants) assert.equal(ok(v), 'https://pronet.example/in/jane-doe', v);
  });

  test('decisions/identity: non-http schemes rejected as invalid_url', () => {
    for (const input of [
      'ftp://pronet.example/in/jane',
      'mailto:jane@pronet.example',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'ws://pronet.example/in/jane',
      'data:text/plain,hi',
    ]) {
      assert.equal(problem(input), 'invalid_url', input);
    }
  });

  test('decisions/identity: relative URLs rejected as invalid_url', () => {
    for (const input of ['/in/jane', 'in/jane', '//pronet.example/in/jane', 'pronet.example/in/jane', 'https:/pronet.example/in/jane', '?x=1']) {
      assert.equal(problem(input), 'invalid_url', input);
    }
  });

  test('decisions/identity: garbage rejected as invalid_url', () => {
    for (const input of [
      '',
      '   ',
      'not a url',
      'http://',
      'https://',
      'https:// /x',
      'http://[::1',
      'https://exa mple.com/x',
      'https://pronet.example/%E0%A4%A',
    ]) {
      assert.equal(problem(input), 'invalid_url', input);
    }
  });

  test('decisions/identity: credentials in the URL rejected as invalid_url', () => {
    assert.equal(problem('https://user:secret@pronet.example/in/jane'), 'invalid_url');
    assert.equal(problem('https://user@pronet.example/in/jane'), 'invalid_url');
    assert.equal(problem('http://:secret@pronet.example/in/jane'), 'invalid_url');
  });

  test('contract 2.7: pronet_url longer than 2048 chars rejected as too_long', () => {
    assert.equal(MAX_URL_LENGTH, 2048);
    const base = 'https://pronet.example/in/';
    const exact = base + 'a'.repeat(2048 - base.length);
    assert.equal(exact.length, 2048);
    assert.equal(ok(exact), exact);
    assert.equal(problem(exact + 'a'), 'too_long');
    assert.equal(problem('x'.repeat(5000)), 'too_long');
  });

  test('decisions/identity: normalized URL is re-encoded once so it stays a valid URI', () => {
    assert.equal(ok('https://pronet.example/in/Jane%20Doe'), 'https://pronet.example/in/jane%20doe');
    assert.equal(ok('https://pronet.example/in/100%25'), 'https://pronet.example/in/100%25');
  });

  // Idempotence counterexamples found while writing the properties below (see final report).
  test('decisions/identity: normal form is stable — decoded %3F / %23 in the path', () => {
    for (const input of ['https://pronet.example/in/a%3Fb', 'https://pronet.example/in/a%23b']) {
      const once = ok(input);
      assert.equal(ok(once), once, `${input} -> ${once} -> ${ok(once)}`);
    }
  });

  test('decisions/identity: normal form is stable — http URL with explicit port 443', () => {
    const once = ok('http://pronet.example:443/in/jane');
    assert.equal(ok(once), once);
  });

  test('decisions/identity: normal form is stable — host starting with www.www.', () => {
    const once = ok('https://www.www.pronet.example/in/jane');
    assert.equal(ok(once), once);
  });
});

// ---------- properties ----------

describe('normalizeProfileUrl — properties', () => {
  test('decisions/identity: normalization is idempotent', () => {
    fc.assert(
      fc.property(anyHttpUrl, (input) => {
        const first = normalizeProfileUrl(input);
        if (!first.ok) return true;
        const second = normalizeProfileUrl(first.url);
        assert.deepEqual(second, first, `${input} -> ${first.url}`);
      }),
      { numRuns: 300 },
    );
  });

  test('decisions/identity: normalization never throws for any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyString,
          anyString.map((s) => `https://${s}`),
          anyString.map((s) => `http://pronet.example/${s}`),
          fc.domain().map((d) => `https://${d}/in/x`),
          anyHttpUrl,
        ),
        (input) => {
          const result = normalizeProfileUrl(input);
          assert.equal(typeof result.ok, 'boolean');
          if (!result.ok) assert.ok(result.problem === 'invalid_url' || result.problem === 'too_long');
        },
      ),
      { numRuns: 400 },
    );
  });

  test('decisions/identity: output always starts with https:// and parses with new URL', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyHttpUrl,
          fc.domain().map((d) => `http://${d}`),
        ),
        (input) => {
          const result = normalizeProfileUrl(input);
          if (!result.ok) return true;
          assert.ok(result.url.startsWith('https://'), result.url);
          const parsed = new URL(result.url);
          assert.equal(parsed.protocol, 'https:');
          assert.equal(parsed.username, '');
          assert.equal(parsed.password, '');
          assert.equal(parsed.hostname, parsed.hostname.toLowerCase());
          assert.equal(parsed.search, '');
          assert.equal(parsed.hash, '');
          assert.ok(result.url.length <= MAX_URL_LENGTH);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('decisions/identity: case, www., trailing-slash, query and fragment variants of one URL normalize equal', () => {
    fc.assert(
      fc.property(
        bareHost,
        plainPath,
        fc.constantFrom('http', 'https'),
        fc.record({
          upper: fc.boolean(),
          www: fc.boolean(),
          slash: fc.boolean(),
          q: query,
          f: fragment,
          scheme: fc.constantFrom('http', 'https'),
        }),
        (host, p, baseScheme, v) => {
          const base = `${baseScheme}://${host}${p}`;
          let variant = `${v.scheme}://${v.www ? 'www.' : ''}${host}${p}${v.slash ? '/' : ''}${v.q}${v.f}`;
          if (v.upper) variant = variant.toUpperCase();
          assert.equal(ok(variant), ok(base), `${variant} vs ${base}`);
          assert.equal(ok(base), `https://${host}${p.toLowerCase()}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
