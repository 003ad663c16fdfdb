/**
 * "What changed since the previous scan" (use-cases/progress.ts): the report
 * page's section (people improved, regressed, unchanged; gaps fixed and new;
 * the team's trend) and the person page's (their trend, what they fixed).
 *
 * The trend is an SVG drawn here, on the server: no script, so it shows
 * without JavaScript and in print. Its points are also written out as text
 * (the figure's caption), which is its text alternative for screen readers
 * and for anyone who wants the numbers; colour is never the only cue.
 */
import { CHECKS } from '../../domain/checks/catalog.js';
import type { PersonProgress } from '../../domain/progress.js';
import type { ProgressState } from '../../domain/progress-state.js';
import type { PersonTrendPoint, ReportProgress } from '../../use-cases/progress.js';
import { pct } from './labels.js';

const titleOf = new Map(CHECKS.map((c) => [c.key, c.title]));
const checkTitle = (key: string) => titleOf.get(key) ?? key;

export const PROGRESS_LABEL: Record<ProgressState, string> = {
  improved: 'Improved',
  regressed: 'Regressed',
  unchanged: 'Unchanged',
  first_scan: 'First scan',
  not_rescanned: 'Not scanned again',
  not_analyzed: 'Not analyzed',
};

/** "6 Dec" (UTC). */
function day(at: Date): string {
  return at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** "14:05" (UTC). */
function time(at: Date): string {
  return at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
}

/**
 * The chart's and the caption's label of each scan, distinct from every
 * other: its date ("6 Dec"); the time too when another scan has the same
 * date ("6 Dec 14:05"); and its number when even that repeats
 * ("6 Dec 14:05, scan 3").
 */
export function trendLabels(points: readonly TrendPoint[]): string[] {
  const count = (labels: string[]) => labels.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const days = points.map((p) => day(p.at));
  const dayCounts = count(days);
  const dated = points.map((p, i) => (dayCounts.get(days[i])! > 1 ? `${days[i]} ${time(p.at)}` : days[i]));
  const datedCounts = count(dated);
  return dated.map((label, i) => (datedCounts.get(label)! > 1 ? `${label}, scan ${i + 1}` : label));
}

/** A signed change in points, "+4.5", "−2", "±0". */
export function signed(change: number): string {
  if (change === 0) return '±0';
  const text = String(Math.abs(Math.round(change * 10) / 10));
  return change > 0 ? `+${text}` : `−${text}`;
}

export interface TrendPoint {
  at: Date;
  value: number | null;
}

const W = 320;
const H = 120;
const PAD = { left: 34, right: 10, top: 10, bottom: 22 };

/** Where a point is drawn: evenly spaced scans, the score from 0 (bottom) to 100 (top). */
export function trendCoordinates(points: readonly TrendPoint[]): { x: number; y: number | null }[] {
  const width = W - PAD.left - PAD.right;
  const height = H - PAD.top - PAD.bottom;
  return points.map((p, i) => ({
    x: Math.round((PAD.left + (points.length === 1 ? width / 2 : (i * width) / (points.length - 1))) * 10) / 10,
    y: p.value === null ? null : Math.round((PAD.top + height - (Math.max(0, Math.min(100, p.value)) * height) / 100) * 10) / 10,
  }));
}

/** A small line chart of scores per scan, with its points as text in the caption. */
export function TrendChart(props: { id: string; title: string; points: readonly TrendPoint[] }) {
  const coords = trendCoordinates(props.points);
  const drawn = coords.filter((c): c is { x: number; y: number } => c.y !== null);
  const labels = trendLabels(props.points);
  const text = props.points.map((p, i) => `${labels[i]}: ${p.value === null ? 'no score' : pct(p.value)}`).join('; ');
  const gridY = (v: number) => PAD.top + ((H - PAD.top - PAD.bottom) * (100 - v)) / 100;
  return (
    <figure class="trend" id={props.id}>
      <svg
        class="trend-chart"
        viewBox={`0 0 ${W} ${H}`}
        width={W}
        height={H}
        role="img"
        aria-labelledby={`${props.id}-title`}
        data-points={JSON.stringify(props.points.map((p) => p.value))}
      >
        <title id={`${props.id}-title`}>{`${props.title}: ${text}`}</title>
        {[0, 50, 100].map((v) => (
          <g>
            <line class="trend-grid" x1={PAD.left} x2={W - PAD.right} y1={gridY(v)} y2={gridY(v)} />
            <text class="trend-axis" x={PAD.left - 6} y={gridY(v) + 4} text-anchor="end">
              {v}
            </text>
          </g>
        ))}
        {drawn.length > 1 ? <polyline class="trend-line" fill="none" points={drawn.map((c) => `${c.x},${c.y}`).join(' ')} /> : null}
        {drawn.map((c) => (
          <circle class="trend-dot" cx={c.x} cy={c.y} r="3.5" />
        ))}
        {props.points.length > 0 ? (
          <>
            <text class="trend-axis" x={coords[0].x} y={H - 6} text-anchor={props.points.length === 1 ? 'middle' : 'start'}>
              {labels[0]}
            </text>
            {props.points.length > 1 ? (
              <text class="trend-axis" x={coords[coords.length - 1].x} y={H - 6} text-anchor="end">
                {labels[labels.length - 1]}
              </text>
            ) : null}
          </>
        ) : null}
      </svg>
      <figcaption class="muted">
        {props.title}: {text}.
      </figcaption>
    </figure>
  );
}

/** The report page's "since the previous scan" section. */
export function ReportProgressSection(props: { progress: ReportProgress; reportPath: string }) {
  const { rounds, team } = props.progress;
  const c = team.counts;
  const compared = c.improved + c.regressed + c.unchanged;
  const last = rounds[rounds.length - 1];
  const before = rounds[rounds.length - 2];
  // One scan and nobody to compare: nothing to show yet (the scan-again card says how to get there).
  if (compared === 0 && c.not_rescanned === 0 && rounds.length < 2) return null;
  return (
    <section aria-labelledby="progress-heading" id="progress" class={compared === 0 ? 'progress no-print' : 'progress'}>
      <h2 id="progress-heading">Since the previous scan</h2>
      {compared === 0 ? (
        <p class="muted" id="progress-none">
          {c.not_rescanned > 0
            ? `Nobody could be compared yet: ${c.not_rescanned} could not be scanned again.`
            : 'Progress shows once people have been scanned twice: scan the report again after they have edited their profiles.'}
        </p>
      ) : (
        <>
          <ul class="progress-counts" id="progress-counts">
            <li data-state="improved">
              <strong>{c.improved}</strong> improved
            </li>
            <li data-state="regressed">
              <strong>{c.regressed}</strong> regressed
            </li>
            <li data-state="unchanged">
              <strong>{c.unchanged}</strong> unchanged
            </li>
            {c.not_rescanned > 0 ? (
              <li data-state="not_rescanned">
                <strong>{c.not_rescanned}</strong> could not be scanned again (earlier results kept)
              </li>
            ) : null}
            {c.first_scan > 0 ? (
              <li data-state="first_scan">
                <strong>{c.first_scan}</strong> scanned for the first time
              </li>
            ) : null}
          </ul>
          <p>
            <strong id="gaps-fixed">{team.fixedTotal}</strong> {team.fixedTotal === 1 ? 'gap' : 'gaps'} fixed ·{' '}
            <strong id="gaps-new">{team.openedTotal}</strong> new {team.openedTotal === 1 ? 'gap' : 'gaps'}. A check that could no longer be observed is not
            counted as fixed.
          </p>
          {team.checks.length > 0 ? (
            <table class="progress-checks" id="progress-checks">
              <caption class="visually-hidden">Gaps fixed and new, by check</caption>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col" class="num">
                    Fixed
                  </th>
                  <th scope="col" class="num">
                    New
                  </th>
                </tr>
              </thead>
              <tbody>
                {team.checks.map((m) => (
                  <tr data-check={m.check.key}>
                    <th scope="row">
                      <a href={`${props.reportPath}?check=${encodeURIComponent(m.check.key)}&outcome=optimize#people-heading`}>{m.check.title}</a>
                    </th>
                    <td class="num">{m.fixed}</td>
                    <td class="num">{m.opened}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      )}
      {rounds.length > 0 ? (
        <>
          <TrendChart id="team-trend" title="Team score by completed scan" points={rounds.map((r) => ({ at: r.completedAt, value: r.scorePct }))} />
          {last && before && last.scorePct !== null && before.scorePct !== null ? (
            <p id="team-change">
              Team score {pct(before.scorePct)} → {pct(last.scorePct)} ({signed(last.scorePct - before.scorePct)} points).
            </p>
          ) : null}
          {last && last.topGaps.length > 0 ? <p class="muted">Top gaps at the latest scan: {last.topGaps.map(checkTitle).join(', ')}.</p> : null}
        </>
      ) : null}
    </section>
  );
}

/** The person page's trend and "fixed since last scan". */
export function PersonProgressSection(props: { trend: readonly PersonTrendPoint[]; progress: PersonProgress }) {
  const p = props.progress;
  if (p.state === 'first_scan') return null;
  return (
    <section aria-labelledby="person-progress-heading" id="person-progress" class="progress">
      <h2 id="person-progress-heading">Since the previous scan</h2>
      <p id="person-progress-state">
        <strong>{PROGRESS_LABEL[p.state]}</strong>
        {p.changePct !== null && p.previousScorePct !== null ? (
          <>
            {' '}
            · score {pct(p.previousScorePct)} → {pct(p.previousScorePct + p.changePct)} ({signed(p.changePct)} points)
          </>
        ) : null}
        {p.state === 'not_rescanned' ? ' · the latest scan could not read the profile (private or unreachable); the results shown are the earlier ones' : null}
      </p>
      {p.fixed.length > 0 ? (
        <>
          <h3>Fixed since last scan</h3>
          <ul id="fixed-since">
            {p.fixed.map((key) => (
              <li data-check={key}>{checkTitle(key)}</li>
            ))}
          </ul>
        </>
      ) : null}
      {p.opened.length > 0 ? (
        <>
          <h3>New since last scan</h3>
          <ul id="new-since">
            {p.opened.map((key) => (
              <li data-check={key}>{checkTitle(key)}</li>
            ))}
          </ul>
        </>
      ) : null}
      {props.trend.length > 0 ? (
        <TrendChart id="person-trend" title="Score by scan" points={props.trend.map((t) => ({ at: t.scannedAt, value: t.scorePct }))} />
      ) : null}
    </section>
  );
}
