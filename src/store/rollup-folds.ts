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
 * Measured and not kept: a fold that waits a window (100 ms) for more
 * transitions of its report took the statements per item from about 14 to
 * 11 (one fold of about ten statements per many items; a fold is two
 * statements since: rollup-repository.ts, foldOnce), but the runs'
 * statuses and the report row then trailed the summary's work counts (which
 * add the pending deltas) by up to that much, and the web report test saw a
 * finished summary beside a run still running. A window needs the run reads
 * to add the pending run changes first.
 */
import { sql, type Kysely } from 'kysely';
import { foldOnce, hasDeltas } from './rollup-repository.js';
import type { Database } from './schema.js';

/** Rounds one settle makes before it leaves the rest to the sweep (a report that never stops changing). */
const MAX_FOLD_ROUNDS = 50;

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
 * report lock, that one folds: a worker's fold checks for deltas again after
 * its commit, and the sweep (`settleStaleRollups`) catches what is left
 * after an API write's fold or a crash.
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
      for (let round = 1; ; round++) {
        entry.again = false;
        const result = await foldOnce(db, reportId, now);
        const more = result.kind === 'folded' ? await hasDeltas(db, reportId, result.held) : false;
        if ((!more && !entry.again) || round >= MAX_FOLD_ROUNDS) return;
        // Asked again while another transaction held the report: give it a moment before trying.
        if (result.kind === 'busy') await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * round)));
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
