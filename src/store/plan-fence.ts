/**
 * A plan fence: a subquery PostgreSQL may not flatten into the query around
 * it (`OFFSET 0`), so the conditions written outside it are never pushed
 * into it and never become index conditions there.
 *
 * What it trades. Per-item statements are prepared (prepared-statements.ts)
 * and most executions run a generic plan, made for any parameter values. For
 * `x = any($n)` such a plan costs an unknown number of index probes, and for
 * a report the statistics know nothing about (a report newer than the last
 * ANALYZE, every report of a young database) the planner estimates one row,
 * so reading a whole report by `report_id` and filtering looked cheaper than
 * the probes: every finish and every fold walked its report. Inside the fence
 * the rows are found by the key that names them exactly; the other
 * conditions filter those few rows outside it. In exchange the planner
 * cannot reorder across the fence, so a fenced subquery must name its rows
 * by a key that is selective on its own (a primary key, or a person's id in
 * an index that starts with it). The findings page also fences its lateral
 * primary-key lookup, so that no plan turns it into a merge join that walks
 * profile_analyses from its first row on every page.
 */
import { sql } from 'kysely';

/** The fence as text, for statements written as strings (the fused reads' prepared texts). */
export const UNFLATTENED_TEXT = 'offset 0';

/** Ends a subquery so that PostgreSQL keeps it as written (Kysely: `.modifyEnd(UNFLATTENED)`; a `sql` template: `${UNFLATTENED}` last). */
export const UNFLATTENED = sql.raw(UNFLATTENED_TEXT);
