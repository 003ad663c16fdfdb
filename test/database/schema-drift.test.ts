/**
 * `src/store/schema.ts` (the row types every query is checked against) must
 * describe the migrated database: the same tables, the same columns, and the
 * same nullability. The types are read with the TypeScript compiler API from
 * the source; the database from information_schema of a freshly migrated
 * copy. A migration without its types (or types without their migration)
 * fails here instead of at run time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import pg from 'pg';
import ts from 'typescript';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

const schemaFile = path.resolve(import.meta.dirname, '../../src/store/schema.ts');

interface DeclaredColumn {
  nullable: boolean;
}

/** Tables of `interface Database` and, per table, its columns with whether the type admits null. */
function declaredTables(): Map<string, Map<string, DeclaredColumn>> {
  const program = ts.createProgram([schemaFile], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(schemaFile)!;
  let database: ts.InterfaceDeclaration | undefined;
  ts.forEachChild(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'Database') database = node;
  });
  assert.ok(database, 'schema.ts declares interface Database');
  const tables = new Map<string, Map<string, DeclaredColumn>>();
  for (const member of database.members) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    const tableName = (member.name as ts.Identifier).text;
    const tableType = checker.getTypeFromTypeNode(member.type);
    const columns = new Map<string, DeclaredColumn>();
    for (const property of checker.getPropertiesOfType(tableType)) {
      const type = checker.getTypeOfSymbolAtLocation(property, member);
      // Kysely's ColumnType<S, I, U> / Generated<T>: the select type (S) is what the row holds.
      const select = type.getProperty('__select__');
      const selectType = select ? checker.getTypeOfSymbolAtLocation(select, member) : type;
      const parts = selectType.isUnion() ? selectType.types : [selectType];
      columns.set(property.name, { nullable: parts.some((p) => (p.flags & ts.TypeFlags.Null) !== 0) });
    }
    tables.set(tableName, columns);
  }
  return tables;
}

describe('store/schema.ts describes the migrated database', () => {
  let database: TestDatabase;
  let actual: Map<string, Map<string, { nullable: boolean | null }>>;
  before(async () => {
    database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string; column_name: string; is_nullable: 'YES' | 'NO'; is_generated: string }>(
        `select c.table_name, c.column_name, c.is_nullable, c.is_generated
           from information_schema.columns c
           join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
          where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
            and c.table_name not like 'kysely_%'`,
      );
      actual = new Map();
      for (const row of rows) {
        if (!actual.has(row.table_name)) actual.set(row.table_name, new Map());
        // A generated column reports itself nullable whatever its expression yields; its type says what it holds.
        const nullable = row.is_generated === 'ALWAYS' ? null : row.is_nullable === 'YES';
        actual.get(row.table_name)!.set(row.column_name, { nullable });
      }
    } finally {
      await client.end();
    }
  });
  after(async () => database?.drop());

  test('the same tables', () => {
    assert.deepEqual([...declaredTables().keys()].sort(), [...actual.keys()].sort());
  });

  test('the same columns in every table, with the same nullability', () => {
    const declared = declaredTables();
    for (const [table, columns] of actual) {
      const types = declared.get(table);
      if (!types) continue; // reported by the test above
      assert.deepEqual([...types.keys()].sort(), [...columns.keys()].sort(), `columns of ${table}`);
      for (const [column, { nullable }] of columns) {
        if (nullable === null) continue;
        assert.equal(types.get(column)?.nullable, nullable, `${table}.${column} is ${nullable ? '' : 'not '}nullable in the database`);
      }
    }
  });
});
