/**
 * decisions "Identity and normalization" — company root domain:
 * `company.domain` may be a hostname or an http(s) URL; `root_domain` is the
 * registrable domain under the Public Suffix List including its private
 * section; null when none exists (IP address, `localhost`, a bare suffix).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { hostnameOf, rootDomain } from '../../src/domain/root-domain.js';

// ---------- generators ----------

/** Labels prefixed with `zq` so that no generated label is itself a PSL entry. */
const label = fc.stringMatching(/^[a-z0-9]{1,8}$/).map((l) => `zq${l}`);
const suffix = fc.constantFrom('com', 'org', 'de', 'co.uk', 'org.uk', 'com.au', 'github.io', 'herokuapp.com', 'blogspot.com');
const host = fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), suffix).map(([labels, sfx]) => `${labels.join('.')}.${sfx}`);
/** A hostname in the different shapes company.domain may take. */
const domainInput = fc
  .tuple(host, fc.constantFrom('', 'https://', 'http://', 'HTTPS://'), fc.constantFrom('', '/', '/about?x=1', ':8443/x', '#top'), fc.boolean())
  .map(([h, scheme, tail, upper]) => {
    const text = `${scheme}${h}${scheme === '' && tail.startsWith(':') ? '' : tail}`;
    return upper ? text.toUpperCase() : text;
  });
const anyString = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      fc.constantFrom(':', '/', '//', '%', '?', '#', '@', '.', '..', '[', ']', ' ', 'www.', 'http://', 'ftp://', 'co.uk', 'com', '127.0.0.1'),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

// ---------- examples ----------

describe('rootDomain — examples', () => {
  test('decisions/identity: root domain of www.example.co.uk is example.co.uk (public suffix)', () => {
    assert.equal(rootDomain('www.example.co.uk'), 'example.co.uk');
    assert.equal(rootDomain('example.co.uk'), 'example.co.uk');
    assert.equal(rootDomain('a.b.c.example.co.uk'), 'example.co.uk');
  });

  test('decisions/identity: acme.github.io stays acme.github.io (private PSL section)', () => {
    assert.equal(rootDomain('acme.github.io'), 'acme.github.io');
    assert.equal(rootDomain('www.acme.github.io'), 'acme.github.io');
    assert.equal(rootDomain('https://acme.github.io/careers'), 'acme.github.io');
  });

  test('decisions/identity: an http(s) URL is reduced to its root domain', () => {
    assert.equal(rootDomain('https://sub.acme.com/path?x'), 'acme.com');
    assert.equal(rootDomain('http://www.acme.com'), 'acme.com');
    assert.equal(rootDomain('https://acme.com:8443/x#y'), 'acme.com');
    assert.equal(hostnameOf('https://sub.acme.com/path?x'), 'sub.acme.com');
  });

  test('decisions/identity: a bare hostname with path or port is accepted', () => {
    assert.equal(rootDomain('acme.com/about'), 'acme.com');
    assert.equal(rootDomain('shop.acme.com:8080'), 'acme.com');
    assert.equal(rootDomain('  acme.com  '), 'acme.com');
  });

  test('decisions/identity: IP addresses have no root domain (null)', () => {
    for (const input of ['127.0.0.1', '8.8.8.8', 'http://10.0.0.1/x', '1.2.3.4:80', '[::1]', 'https://[2001:db8::1]/']) {
      assert.equal(rootDomain(input), null, input);
    }
  });

  test('decisions/identity: localhost has no root domain (null)', () => {
    assert.equal(rootDomain('localhost'), null);
    assert.equal(rootDomain('http://localhost:3000/'), null);
    assert.equal(rootDomain('LOCALHOST'), null);
  });

  test('decisions/identity: a bare public suffix has no root domain (null)', () => {
    for (const input of ['co.uk', 'com', 'github.io', 'https://co.uk/', 'uk']) {
      assert.equal(rootDomain(input), null, input);
    }
  });

  test('decisions/identity: non-http URL schemes have no root domain (null)', () => {
    for (const input of ['ftp://acme.com', 'ws://acme.com/x', 'file:///etc/hosts', 'mailto:ceo@acme.com', 'javascript:alert(1)', 'data:text/plain,acme.com']) {
      assert.equal(rootDomain(input), null, input);
      assert.equal(hostnameOf(input), null, input);
    }
  });

  test('decisions/identity: a trailing dot is ignored', () => {
    assert.equal(rootDomain('www.acme.com.'), 'acme.com');
    assert.equal(rootDomain('https://www.example.co.uk./'), 'example.co.uk');
    assert.equal(hostnameOf('acme.com.'), 'acme.com');
  });

  test('decisions/identity: upper case is folded', () => {
    assert.equal(rootDomain('WWW.ACME.COM'), 'acme.com');
    assert.equal(rootDomain('HTTPS://Shop.Example.CO.UK/Path'), 'example.co.uk');
    assert.equal(rootDomain('Acme.GitHub.IO'), 'acme.github.io');
  });

  test('decisions/identity: empty, blank and garbage input have no root domain (null)', () => {
    for (const input of ['', '   ', 'not a domain', 'https://', 'user@acme.com', '???', 'http://exa mple.com']) {
      assert.equal(rootDomain(input), null, input);
    }
  });
});

// ---------- properties ----------

describe('rootDomain — properties', () => {
  test('decisions/identity: root domain is idempotent', () => {
    fc.assert(
      fc.property(fc.oneof(domainInput, host, anyString), (input) => {
        const root = rootDomain(input);
        if (root !== null) assert.equal(rootDomain(root), root, `${input} -> ${root}`);
      }),
      { numRuns: 300 },
    );
  });

  test('decisions/identity: every subdomain of a root domain maps to that root', () => {
    fc.assert(
      fc.property(domainInput, fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('', 'https://', 'http://www.'), (input, subs, prefix) => {
        const root = rootDomain(input);
        assert.notEqual(root, null, input);
        assert.equal(rootDomain(`${prefix}${subs.join('.')}.${root}`), root);
        assert.equal(rootDomain(`www.${root}`), root);
      }),
      { numRuns: 300 },
    );
  });

  test('decisions/identity: the same host in any accepted shape has one root domain', () => {
    fc.assert(
      fc.property(host, fc.constantFrom('', 'https://', 'http://', 'HTTPS://WWW.'), fc.constantFrom('', '/', '/a?b#c', '.'), (h, scheme, tail) => {
        assert.equal(rootDomain(`${scheme}${h}${tail}`), rootDomain(h));
      }),
      { numRuns: 200 },
    );
  });

  test('decisions/identity: root domain never throws and returns a lower-case host or null', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, domainInput, fc.domain()), (input) => {
        const root = rootDomain(input);
        const hostname = hostnameOf(input);
        if (root !== null) {
          assert.equal(typeof root, 'string');
          assert.equal(root, root.toLowerCase());
          assert.ok(!root.endsWith('.'));
          assert.notEqual(hostname, null);
        }
      }),
      { numRuns: 300 },
    );
  });
});
