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
 */
import { sql, type OperationNodeSource, type RawBuilder } from 'kysely';

export function inOneStatement(
  writes: readonly OperationNodeSource[],
  last: OperationNodeSource,
  /**
   * Named parts before the writes, which `last` (and the next named parts)
   * may read: a write whose result decides the statement, as in
   * queue/finish.ts, endPersonItem. `materialized`: evaluated once, as a
   * whole, before anything reads it.
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
