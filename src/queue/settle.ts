/**
 * When a report's roll-up deltas are folded (rollup-repository.ts does the
 * folding: `foldOnce`).
 *
 * A worker's transition does not wait for its fold: it asks for one and its
 * slot is free at once. Requests of one process for one report coalesce
 * into the fold waiting or running (a running one goes round once more), so
 * one fold takes the deltas of every transition committed meanwhile. A
 * stopping worker folds at once what it was asked for
 * (`settlePendingRollups`), and the sweep (`settleStaleRollups`) folds
 * whatever a crash or another process left behind.
 *
 * A fold's first round starts at once. A fold with more to do after a round
 * (deltas pending as its write began, or asked again meanwhile) waits
 * `GATHER_MS` before the next, so that the transitions of a busy report
 * finishing meanwhile share it. What it trades: under load, the runs'
 * statuses and the report row (folded values) trail the summary's work
 * counts (which add the pending deltas) by up to that much more; in
 * exchange a busy report is folded in fewer, larger rounds, and each item
 * pays a smaller share of a fold (bench:pipeline's fold reads per item). A
 * longer wait gains nothing more: half the folds, each twice as dear, since
 * past that a fold's cost follows the people it recomputes, not its rounds.
 *
 * Tried and not kept: a window before every fold, the first too, took fewer
 * statements per item, but the runs'
 * statuses then trailed the summary's work counts by up to that much, and
 * the web report test saw a finished summary beside a run still running. A
 * window that long needs the run reads to add the pending run changes first.
 */
import { sql, type Kysely } from 'kysely';
import { foldOnce } from './fold.js';
import { recordCompletedRound } from '../store/history-repository.js';
import type { Database } from '../store/schema.js';

/** Rounds one settle makes before it leaves the rest to the sweep (a report that never stops changing). */
const MAX_FOLD_ROUNDS = 50;

/**
 * How long a fold that has more to do waits before its next round, so that
 * the transitions finishing meanwhile join it (the module's header says what
 * it trades).
 */
const GATHER_MS = 40;

/** Rounds a settle tries while another transaction holds the report, unless asked again meanwhile. */
const BUSY_ROUNDS = 3;

interface Settling {
  again: boolean;
  done: Promise<void>;
}

/** The folds running in this process, per pool and report. */
const settling = new WeakMap<Kysely<Database>, Map<string, Settling>>();

/**
 * Folds the report's pending deltas after a transition committed one.
 * Requests of one process for one report coalesce into the fold running (it
 * goes round once more). When another process's transaction holds the
 * report lock, the fold tries again a few times (that transaction's own
 * fold may have read before these deltas committed: its write says what was
 * pending as of its start); the sweep (`settleStaleRollups`) catches what is
 * left after a longer holder or a crash.
 */
export function settleRollups(db: Kysely<Database>, reportId: string, now: Date): Promise<void> {
  let folds = settling.get(db);
  if (!folds) settling.set(db, (folds = new Map()));
  const running = folds.get(reportId);
  if (running) {
    running.again = true;
    return running.done;
  }
  const entry: Settling = { again: false, done: Promise.resolve() };
  const map = folds;
  map.set(reportId, entry);
  entry.done = (async () => {
    try {
      let folded = false;
      for (let round = 1; ; round++) {
        entry.again = false;
        const result = await foldOnce(db, reportId, now);
        folded ||= result.kind === 'folded';
        if (round >= MAX_FOLD_ROUNDS) return;
        if (result.kind === 'busy') {
          // Another transaction holds the report. Another process's fold (one statement) may have
          // taken its snapshot before this process's deltas committed: try again a few times, a
          // moment apart. A longer holder (a transaction of the API) is left to fold after itself,
          // or to the sweep, unless this process asks again meanwhile.
          if (round >= BUSY_ROUNDS && !entry.again) return;
          await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * round)));
          continue;
        }
        if (!(result.kind === 'folded' && result.more) && !entry.again) {
          // A settle that leaves the report's round of scans complete keeps the team's picture of it
          // (its last round may find nothing left, when a round before folded what it was asked for again).
          if (folded) await recordCompletedRound(db, reportId);
          return;
        }
        // More to fold: let the transitions finishing meanwhile join the next round.
        await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      }
    } finally {
      map.delete(reportId);
    }
  })();
  return entry.done;
}

/** Waits for the folds this process runs on `db` (a worker stopping; tests). */
export async function settlePendingRollups(db: Kysely<Database>): Promise<void> {
  const folds = [...(settling.get(db)?.values() ?? [])];
  await Promise.all(folds.map((fold) => fold.done.catch(() => undefined)));
}

/** Folds every report whose deltas have waited longer than `olderThanMs` (the workers' poll calls it). */
export async function settleStaleRollups(db: Kysely<Database>, now: Date, olderThanMs: number): Promise<number> {
  const { rows } = await sql<{ report_id: string }>`
    select distinct report_id from rollup_deltas
    where created_at < now() - make_interval(secs => ${olderThanMs / 1000}::float8)
    limit 100`.execute(db);
  for (const row of rows) await settleRollups(db, row.report_id, now);
  return rows.length;
}
