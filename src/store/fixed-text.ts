/**
 * Rows sent as one array per column (`unnest($1::uuid[], $2::text[], …) as
 * v(id, section, …)`), so that a statement that writes a varying number of
 * rows has one text whatever their number.
 *
 * What it trades and why. A multi-row `values (…), (…)` list is a text per
 * number of rows, and the finish of an item writes 0 to 20 evidence images
 * and events: its one statement came in dozens of texts, few of which ran
 * often enough on a connection to be prepared (prepared-statements.ts), so
 * most executions were parsed, analysed and planned anew; and Kysely built
 * and froze a query tree of a node per value on every finish (a visible share
 * of the worker's main thread in a CPU profile). With the
 * columns as arrays, the text depends only on which writes an item makes,
 * and the tree holds one parameter per column. In exchange the rows are
 * written column-wise: every array must have the same length (checked here:
 * `unnest` would pad a short one with nulls), and each column names its SQL
 * type, which the statement casts the array to.
 */
import { sql, type RawBuilder } from 'kysely';

/** The SQL types a column may be sent as (interpolated into the text, so a closed set). */
export type ColumnType = 'uuid' | 'text' | 'integer' | 'jsonb' | 'timestamptz';

/** A column: its name in the `as v(…)` list, its SQL type, and its values (one per row; JSON as text for jsonb). */
export type Column = readonly [name: string, type: ColumnType, values: readonly unknown[]];

/** `unnest(…) as v(…)` of `columns`, for a `from` clause; every column has as many values as the first. */
export function unnestColumns(columns: readonly Column[]): RawBuilder<unknown> {
  if (columns.length === 0) throw new Error('unnestColumns needs at least one column');
  const rows = columns[0][2].length;
  for (const [name, , values] of columns) {
    if (values.length !== rows) throw new Error(`unnestColumns: column ${name} has ${values.length} values, not ${rows}`);
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unnestColumns: ${name} is not a plain column name`);
  }
  const arrays = columns.map(([, type, values]) => sql`${[...values]}::${sql.raw(type)}[]`);
  return sql`unnest(${sql.join(arrays)}) as v(${sql.raw(columns.map(([name]) => name).join(', '))})`;
}
