/**
 * Several data-modifying statements sent as one: `with w0 as (…), w1 as (…)
 * <last>`. What it trades: one round trip instead of several (each costs the
 * worker's event loop a socket write and PostgreSQL a wake-up; a person's
 * finishing item writes its evidence, events and coverage, analysis,
 * contribution and roll-up delta in one), for the rules of data-modifying CTEs: every part runs on the same
 * snapshot and sees none of the others' changes, so no part may read or
 * write what another writes, and every part is a single statement (no `with`
 * of its own). Used where those rules hold by construction: the writes go
 * to different tables, and nothing they read was written by the others.
 *
 * A statement whose writes hold only if its checks do (queue/finish.ts) has
 * a gate: a named part `gate`, one row with a boolean `ok` and the checks
 * it is made of, which its last part returns. Every write of such a
 * statement must be conditional on `gateHolds` (an update's or a delete's
 * condition, an insert's `select … where`: `insertRowIf`), because a
 * data-modifying part runs to completion whether or not anything reads it:
 * when the gate fails, each write then meets no row, and the caller reads
 * the outcome from the returned row.
 */
import { sql, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/** The condition every write of a statement with a gate takes (the module's comment says why). */
export const gateHolds: RawBuilder<boolean> = sql<boolean>`(select ok from gate)`;

export function inOneStatement(
  writes: readonly OperationNodeSource[],
  last: OperationNodeSource,
  /**
   * Named parts before the writes, which `last` (and the next named parts)
   * may read: the locks and the gate of queue/finish.ts, endPersonItem.
   * `materialized`: evaluated once, as a whole, before anything reads it.
   */
  named: readonly { name: string; query: OperationNodeSource; materialized?: boolean }[] = [],
): RawBuilder<unknown> {
  const parts = [
    ...named.map((part) => sql`${sql.ref(part.name)} as ${part.materialized ? sql`materialized ` : sql``}(${part.query})`),
    ...writes.map((write, i) => sql`${sql.ref(`w${i}`)} as (${write})`),
  ];
  if (parts.length === 0) return sql`${last}`;
  return sql`with ${sql.join(parts, sql`, `)} ${last}`;
}

/** Writes (at least one) run as one statement: every one but the last as a CTE, with the same rules. */
export function allInOneStatement(writes: readonly OperationNodeSource[]): RawBuilder<unknown> {
  if (writes.length === 0) throw new Error('allInOneStatement needs at least one write');
  return inOneStatement(writes.slice(0, -1), writes[writes.length - 1]);
}

/**
 * The insert of one row that happens only if `when` holds:
 * `insert into <table> (<columns>) select <values> where <when>` (an insert
 * of `values` cannot have a condition). The values keep no type of their
 * own: each takes its column's, as in `values`.
 */
export function insertRowIf<T extends keyof Database & string>(db: Kysely<Database>, table: T, row: Record<string, unknown>, when: RawBuilder<boolean>) {
  const columns = Object.keys(row);
  return db
    .insertInto(table)
    .columns(columns as never)
    .expression(db.selectNoFrom(columns.map((column) => valueOf(row[column]).as(column))).where(when) as never);
}

/** A row's value as the select of insertRowIf writes it: an expression (a subquery, a cast) as it is, anything else as a parameter. */
function valueOf(value: unknown): RawBuilder<unknown> {
  return isExpression(value) ? value : sql.val(value);
}

function isExpression(value: unknown): value is RawBuilder<unknown> {
  return typeof value === 'object' && value !== null && 'toOperationNode' in value;
}
