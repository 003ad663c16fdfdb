/**
 * The people table's score order (src/use-cases/report-people.ts selectPeople):
 * by the weighted score, people without a score last in both directions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectPeople, type PeopleSelection, type ReportPerson } from '../../src/use-cases/report-people.js';
import { EMPTY_CONTRIBUTION } from '../../src/domain/analysis-aggregate.js';

function person(name: string, weighted: number | null, plain: number | null): ReportPerson {
  return {
    profile_id: name,
    pronet_url: `https://pronet.example/in/${name}`,
    display_name: name,
    name_source: 'supplied',
    title: null,
    headline: null,
    columns: {},
    status: weighted === null ? 'scan_failed' : 'analyzed',
    rescanning: false,
    score_pct: plain,
    weighted_score_pct: weighted,
    good: 0,
    optimize: 0,
    unknown: 0,
    captured_at: null,
    observed: {},
    outcomes: weighted === null ? null : {},
    fix_first: [],
    warning: false,
    restricted: false,
    contribution: EMPTY_CONTRIBUTION,
  };
}

const everyone = [person('Ann', 80, 50), person('Bob', null, null), person('Cid', 40, 90), person('Dee', null, null), person('Eve', 60, 60)];
const bySort = (descending: boolean): PeopleSelection => ({ search: '', title: '', group: '', check: '', outcome: '', status: '', sort: 'score', descending });

test('sorting by score orders by the weighted score, not the share of good checks', () => {
  assert.deepEqual(
    selectPeople(everyone, bySort(false)).map((p) => p.display_name),
    ['Cid', 'Eve', 'Ann', 'Bob', 'Dee'],
  );
});

test('people without a score come last when sorting by score descending too, still by name', () => {
  assert.deepEqual(
    selectPeople(everyone, bySort(true)).map((p) => p.display_name),
    ['Ann', 'Eve', 'Cid', 'Bob', 'Dee'],
  );
});
