/**
 * Scan runs with their progress; live.js updates the marked fields in place
 * while runs are unfinished. An unfinished run that nothing works on now (no
 * scan worker beating: use-cases/report-view.ts) is shown as waiting, never
 * as running.
 */
import { When } from './layout.js';
import { label, RUN_MODE, RUN_STATUS } from './labels.js';

export interface RunView {
  id: string;
  mode: string;
  status: string;
  requested: number;
  completed: number;
  failed: number;
  warnings: number;
  created_at: Date;
  completed_at: Date | null;
}

/** What the status line above the runs says while some are unfinished. */
export const SCANS_RUNNING = 'Scans are running; this page updates by itself.';
export const SCANS_WAITING =
  'Scans are waiting: no scan worker has checked in for several seconds (a worker waits while it cannot reach the database, or none is running). They continue by themselves when one is back; this page updates when they do.';
/** Said by live.js when the page's progress cannot be read (the service answers 503 while its database is away). */
export const SCANS_UNKNOWN = 'The service is temporarily unavailable, so the progress of the scans is unknown; this page keeps checking.';

/**
 * The one status line of unfinished scans: waiting for a worker, else paused
 * collection (`paused`, the provider's breaker: use-cases/report-view.ts),
 * else running. Never two of them at once.
 */
export function scansStatusText(waiting: boolean, paused: string | null): string {
  return waiting ? SCANS_WAITING : (paused ?? SCANS_RUNNING);
}

function unfinished(status: string): boolean {
  return status === 'queued' || status === 'running';
}

/** The run's status as shown: an unfinished run is "Waiting for a worker" while no worker beats, "Waiting for the data provider" while collection is paused. */
export function runStatusLabel(run: Pick<RunView, 'status'>, waiting: boolean, paused = false): string {
  if (!unfinished(run.status)) return label(RUN_STATUS, run.status);
  if (waiting) return 'Waiting for a worker';
  return paused ? 'Waiting for the data provider' : label(RUN_STATUS, run.status);
}

export function runFinished(run: RunView): number {
  return run.completed + run.failed;
}

export function runCountsLabel(run: RunView): string {
  const parts = [`${runFinished(run)} of ${run.requested} finished`, `${run.completed} succeeded`];
  if (run.failed > 0) parts.push(`${run.failed} failed`);
  if (run.warnings > 0) parts.push(`${run.warnings} with warnings`);
  return parts.join(' · ');
}

export function RunList(props: { runs: RunView[]; waiting: boolean; paused: boolean }) {
  if (props.runs.length === 0) return <p class="muted">No scans were requested yet: add people to start them.</p>;
  return (
    <ul class="runs">
      {props.runs.map((run) => (
        <li id={`run-${run.id}`} data-status={run.status} data-waiting={props.waiting && unfinished(run.status) ? 'true' : undefined}>
          <div class="run-head">
            <strong>{label(RUN_MODE, run.mode)}</strong>
            <span data-field="status">{runStatusLabel(run, props.waiting, props.paused)}</span>
          </div>
          <progress max={Math.max(1, run.requested)} value={runFinished(run)} aria-label={`${label(RUN_MODE, run.mode)} scan progress`}>
            {`${runFinished(run)} of ${run.requested}`}
          </progress>
          <p class="muted" data-field="counts">
            {runCountsLabel(run)}
          </p>
          <p class="muted">
            Requested <When at={run.created_at} />
            {run.completed_at ? (
              <>
                {' · finished '}
                <When at={run.completed_at} />
              </>
            ) : null}
          </p>
        </li>
      ))}
    </ul>
  );
}
