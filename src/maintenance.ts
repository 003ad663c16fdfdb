/**
 * The scheduled maintenance task (retention; windows in docs/operations.md).
 *
 * Every `serve` and `worker` process schedules it every MAINTENANCE_INTERVAL
 * (0 turns it off in that process), but one runner at a time across all
 * processes: a run takes the session advisory lock MAINTENANCE_LOCK without
 * waiting (store/session-lock.ts; a process that does not get it skips that round),
 * and, holding it, runs only when no run started in the last interval
 * (`maintenance_state.last_run_at`), so N processes still make one run per
 * interval. A dead runner's lock goes with its connection.
 *
 * Tasks, in this order, each independent (a failure is logged and counted,
 * the others run), named as in the logs and the metrics:
 * - idempotency_records: records expired for RETENTION_EXPIRED_IDEMPOTENCY are deleted;
 * - receipt_tombstones: receipts expired for RETENTION_RECEIPT_TOMBSTONE become
 *   tombstones (contents removed; a read still answers 410);
 * - rate_counters: windows older than RETENTION_RATE_COUNTERS are deleted;
 * - web_sessions: sessions past their lifetime or idle for SESSION_IDLE_MS are deleted;
 * - obsolete_media: evidence obsolete for RETENTION_OBSOLETE_MEDIA that no stored
 *   finding refers to is deleted, with its blobs when no other evidence uses
 *   them (store/maintenance-repository.ts: collectObsoleteMedia), in batches;
 * - removed_people / archived_reports: people removed longer ago than
 *   RETENTION_REMOVED_PEOPLE, and the people of reports archived longer ago
 *   than RETENTION_ARCHIVED_REPORTS, are erased (use-cases/personal-data.ts,
 *   one report per transaction, in batches; both off by default);
 * - scan_history: a person's scans and a report's completed rounds older than
 *   HISTORY_RETENTION_MONTHS calendar months are deleted, in batches
 *   (store/history-repository.ts); the analysis shown stays;
 * - history_comparisons: history rows a process of an earlier version wrote
 *   without what changed since the previous scan, or without their score, get
 *   them (store/history-repository.ts, compareHistory), and rounds recorded
 *   without their trend figures get those (pointRounds), in batches;
 * - progress_rollups: report roll-ups without the team's progress (stored
 *   before it existed, or a contribution a process of an earlier version
 *   stored) are recomputed from the stored rows
 *   (store/maintenance-repository.ts, completeProgressRollups);
 * - old_scans: scan items that ended more than HISTORY_RETENTION_MONTHS
 *   calendar months ago go with their evidence (blobs queued for the
 *   blob_deletions task that follows) and what history rows they still
 *   have, in batches, except those a read still uses: the items the shown results come from and each
 *   person's and company page's latest item per mode
 *   (store/maintenance-repository.ts: pruneOldScans); runs stay (counts only);
 * - blob_deletions: media blobs an erasure or a workspace deletion queued
 *   (store/erasure-repository.ts) are deleted when no evidence uses them; a
 *   failed deletion stays queued, due again after a backoff;
 * - audit_log: entries older than RETENTION_AUDIT_LOG are deleted.
 *
 * A finished item holds no claim (its claim columns are cleared when it
 * finishes): pruning old ones takes no lock a worker waits for but the media
 * collections' one.
 */
import type { Clock } from './clock.js';
import type { RetentionSettings } from './config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { MediaStore } from './scanning/media/media-store.js';
import type { Db } from './store/database.js';
import { pruneIdempotencyRecords } from './store/idempotency-repository.js';
import { pruneRateCounters } from './store/rate-limit-repository.js';
import { withSessionLock } from './store/session-lock.js';
import {
  claimMaintenanceRun,
  collectObsoleteMedia,
  completeProgressRollups,
  drainBlobDeletions,
  MAINTENANCE_LOCK,
  pruneOldScans,
  tombstoneExpiredReceipts,
} from './store/maintenance-repository.js';
import { pruneAudit } from './store/audit-repository.js';
import { compareHistory, pointRounds, pruneHistory } from './store/history-repository.js';
import { pruneSessions } from './store/session-repository.js';
import { SESSION_IDLE_MS } from './use-cases/sign-in.js';
import { eraseExpiredPeople } from './use-cases/personal-data.js';

export interface MaintenanceDeps {
  db: Db;
  media: MediaStore;
  retention: RetentionSettings;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics | null;
}

export type MaintenanceReport = Record<string, number | 'failed'>;

export class MaintenanceRunner {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<MaintenanceReport | null> | null = null;
  #stopped = false;

  constructor(private readonly deps: MaintenanceDeps) {}

  /** Schedules runs every interval (the first one after a random part of it, so processes started together spread out). */
  start(): void {
    const interval = this.deps.retention.intervalMs;
    if (interval <= 0 || this.#timer) return;
    const every = Math.max(1000, interval);
    const tick = () => {
      if (this.#stopped) return;
      void this.runOnce().catch((error: unknown) => this.deps.logger.error({ err: error }, 'maintenance: run failed'));
      this.#timer = setTimeout(tick, every);
      this.#timer.unref();
    };
    this.#timer = setTimeout(tick, Math.min(every, 5000 + Math.random() * Math.min(every, 60_000)));
    this.#timer.unref();
  }

  /** Stops scheduling and waits for a run in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running?.catch(() => null);
  }

  /**
   * One run, if this process gets the lock and no run started in the last
   * interval (`force` skips that second check). Null when skipped.
   */
  runOnce(options: { force?: boolean } = {}): Promise<MaintenanceReport | null> {
    this.#running ??= this.#run(options.force ?? false).finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #run(force: boolean): Promise<MaintenanceReport | null> {
    const { db, logger } = this.deps;
    return withSessionLock(db, MAINTENANCE_LOCK, { wait: false }, async (conn) => {
      const now = this.deps.clock.now();
      if (!(await claimMaintenanceRun(conn, now, force ? 0 : this.deps.retention.intervalMs))) return null;
      const report: MaintenanceReport = {};
      for (const [task, work] of this.#tasks(now)) {
        try {
          report[task] = await work(conn);
          this.deps.metrics?.maintenanceRuns.inc({ task, result: 'ok' });
          this.deps.metrics?.maintenanceDeleted.inc({ task }, report[task]);
        } catch (error) {
          report[task] = 'failed';
          this.deps.metrics?.maintenanceRuns.inc({ task, result: 'error' });
          logger.error({ err: error, task }, 'maintenance: task failed; it runs again at the next interval');
        }
      }
      logger.info({ maintenance: report }, 'maintenance: run finished');
      return report;
    });
  }

  /** Erases what a people retention names, batch by batch until a batch finds nothing (bounded per run). */
  async #eraseExpired(db: Db, cutoffs: { removedBefore: Date | null; archivedBefore: Date | null }): Promise<{ removed: number; archived: number }> {
    const total = { removed: 0, archived: 0 };
    for (let batch = 0; batch < 50; batch++) {
      const done = await eraseExpiredPeople({ db, media: this.deps.media, clock: this.deps.clock }, cutoffs);
      total.removed += done.removed;
      total.archived += done.archived;
      if (done.removed + done.archived === 0) break;
    }
    return total;
  }

  #tasks(now: Date): [string, (db: Db) => Promise<number>][] {
    const { retention, media } = this.deps;
    const ago = (ms: number) => new Date(now.getTime() - ms);
    return [
      ['idempotency_records', (db) => pruneIdempotencyRecords(db, ago(retention.expiredIdempotencyMs))],
      ['receipt_tombstones', (db) => tombstoneExpiredReceipts(db, ago(retention.receiptTombstoneMs), now)],
      ['rate_counters', (db) => pruneRateCounters(db, ago(retention.rateCountersMs))],
      // Web sessions past their lifetime or idle limit (never found by a request anyway).
      ['web_sessions', (db) => pruneSessions(db, now, ago(SESSION_IDLE_MS))],
      [
        'obsolete_media',
        async (db) => {
          let blobs = 0;
          // Batches, until a batch finds nothing (bounded per run).
          for (let batch = 0; batch < 100; batch++) {
            const done = await collectObsoleteMedia(db, ago(retention.obsoleteMediaMs), (sha256) => media.delete(sha256));
            blobs += done.blobs;
            if (done.evidence === 0) break;
          }
          return blobs;
        },
      ],
      [
        'removed_people',
        async (db) =>
          retention.removedPeopleMs > 0 ? (await this.#eraseExpired(db, { removedBefore: ago(retention.removedPeopleMs), archivedBefore: null })).removed : 0,
      ],
      [
        'archived_reports',
        async (db) =>
          retention.archivedReportsMs > 0
            ? (await this.#eraseExpired(db, { removedBefore: null, archivedBefore: ago(retention.archivedReportsMs) })).archived
            : 0,
      ],
      ['scan_history', (db) => pruneHistory(db, monthsBefore(now, retention.historyMonths), now)],
      [
        'history_comparisons',
        async (db) => {
          let compared = 0;
          // Batches, until a batch finds nothing (bounded per run).
          for (let batch = 0; batch < 100; batch++) {
            const n = (await compareHistory(db, now)) + (await pointRounds(db));
            compared += n;
            if (n === 0) break;
          }
          return compared;
        },
      ],
      [
        'progress_rollups',
        async (db) => {
          let recomputed = 0;
          for (let batch = 0; batch < 100; batch++) {
            const n = await completeProgressRollups(db, now);
            recomputed += n;
            if (n === 0) break;
          }
          return recomputed;
        },
      ],
      ['old_scans', (db) => pruneOldScans(db, monthsBefore(now, retention.historyMonths), now)],
      ['blob_deletions', async (db) => (await drainBlobDeletions(db, now, (sha256) => media.delete(sha256))).deleted],
      ['audit_log', (db) => pruneAudit(db, ago(retention.auditLogMs))],
    ];
  }
}

/** The instant `months` calendar months before `now` (UTC; a day the month lacks falls to the month's last day). */
export function monthsBefore(now: Date, months: number): Date {
  const at = new Date(now.getTime());
  const day = at.getUTCDate();
  at.setUTCDate(1);
  at.setUTCMonth(at.getUTCMonth() - months);
  const last = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  at.setUTCDate(Math.min(day, last));
  return at;
}
