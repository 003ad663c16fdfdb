/** Rows sent as one array per column have one text whatever their number (src/store/fixed-text.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { unnestColumns, type Column } from '../../src/store/fixed-text.js';

const db = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const insertOf = (ids: string[]) => {
  const columns: Column[] = [
    ['id', 'uuid', ids],
    ['section', 'text', ids.map((_, i) => `s${i}`)],
    ['width', 'integer', ids.map(() => null)],
  ];
  return sql`insert into t (id, section, width) select v.id, v.section, v.width from ${unnestColumns(columns)}`.compile(db);
};

describe('unnestColumns', () => {
  test('one row and five rows make the same text, with one parameter per column', () => {
    const one = insertOf(['a']);
    const five = insertOf(['a', 'b', 'c', 'd', 'e']);
    assert.equal(one.sql, five.sql);
    assert.equal(
      five.sql,
      'insert into t (id, section, width) select v.id, v.section, v.width from unnest($1::uuid[], $2::text[], $3::integer[]) as v(id, section, width)',
    );
    assert.deepEqual(five.parameters, [
      ['a', 'b', 'c', 'd', 'e'],
      ['s0', 's1', 's2', 's3', 's4'],
      [null, null, null, null, null],
    ]);
  });

  test('a column with fewer values than the first is refused, not padded with nulls', () => {
    assert.throws(
      () =>
        unnestColumns([
          ['id', 'uuid', ['a', 'b']],
          ['section', 'text', ['s0']],
        ]),
      /column section has 1 values, not 2/,
    );
  });

  test('a column name that is not a plain identifier is refused', () => {
    assert.throws(() => unnestColumns([['id) x; --', 'uuid', ['a']]]), /not a plain column name/);
  });

  test('no columns is refused', () => {
    assert.throws(() => unnestColumns([]), /at least one column/);
  });
});
