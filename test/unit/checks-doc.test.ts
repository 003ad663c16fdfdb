import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CATALOG_VERSION, CATEGORIES, CHECKS } from '../../src/domain/checks/catalog.js';
import { CHECKS_DOC_PATH, renderChecksDoc } from '../../scripts/gen-checks-doc.js';

test('docs/checks.md equals the text generated from the catalog (run scripts/gen-checks-doc.ts after changing checks)', () => {
  assert.equal(readFileSync(CHECKS_DOC_PATH, 'utf8'), renderChecksDoc());
});

test('the generated doc names the catalog version, every category and every check with its id, recommendation and evidence section', () => {
  const doc = renderChecksDoc();
  assert.ok(doc.includes(`\`${CATALOG_VERSION}\``));
  for (const category of CATEGORIES) assert.ok(doc.includes(`## ${category.title} (\`${category.key}\`)`), category.key);
  for (const check of CHECKS) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${check.key}\` |`));
    assert.ok(row, check.key);
    assert.ok(row.includes(`\`${check.id}\``), check.key);
    assert.ok(row.includes(check.recommendation.replace(/\|/g, '\\|')), check.key);
    assert.ok(row.endsWith(check.evidence_section === null ? '| — |' : `| \`${check.evidence_section}\` |`), check.key);
  }
});
