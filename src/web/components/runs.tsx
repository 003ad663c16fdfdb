/** Scan runs with their progress; live.js updates the marked fields in place while runs are unfinished. */
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

export function runFinished(run: RunView): number {
  return run.completed + run.failed;
}

export function runCountsLabel(run: RunView): string {
  const parts = [`${runFinished(run)} of ${run.requested} finished`, `${run.completed} succeeded`];
  if (run.failed > 0) parts.push(`${run.failed} failed`);
  if (run.warnings > 0) parts.push(`${run.warnings} with warnings`);
  return parts.join(' · ');
}

export function RunList(props: { runs: RunView[] }) {
  if (props.runs.length === 0) return <p class="muted">No scans were requested yet: add people to start them.</p>;
  return (
    <ul class="runs">
      {props.runs.map((run) => (
        <li id={`run-${run.id}`} data-status={run.status}>
          <div class="run-head">
            <strong>{label(RUN_MODE, run.mode)}</strong>
            <span data-field="status">{label(RUN_STATUS, run.status)}</span>
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
