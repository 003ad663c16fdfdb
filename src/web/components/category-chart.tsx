/**
 * Per-category scores as an inline SVG bar chart (no chart script): one bar
 * per category, its length the share of answered checks that are good. Sized
 * by its viewBox, so it scales down on a phone; colours come from the
 * stylesheet. Screen readers get a title, a description and the same numbers
 * as a table.
 */
import { CATEGORIES } from '../../domain/checks/catalog.js';
import { pct } from './labels.js';

export interface CategoryScore {
  key: string;
  good: number;
  optimize: number;
  answered: number;
  score_pct: number | null;
}

const titleOf = new Map(CATEGORIES.map((c) => [c.key, c.title]));

export function categoryTitle(key: string): string {
  return titleOf.get(key) ?? key;
}

const WIDTH = 760;
const LABEL = 180;
const BAR = 280;
const ROW = 34;

export function CategoryChart(props: { id: string; categories: CategoryScore[] }) {
  const rows = props.categories;
  const height = rows.length * ROW + 8;
  const described = rows.map((c) => `${categoryTitle(c.key)} ${pct(c.score_pct)}`).join(', ');
  return (
    <figure class="chart-figure">
      <svg class="chart" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${props.id}-title ${props.id}-desc`} focusable="false">
        <title id={`${props.id}-title`}>Score by category</title>
        <desc id={`${props.id}-desc`}>{`Share of answered checks that are good: ${described}.`}</desc>
        {rows.map((c, i) => {
          const y = i * ROW + 4;
          const length = c.score_pct === null ? 0 : Math.round((BAR * c.score_pct) / 100);
          return (
            <g>
              <text x={0} y={y + 19}>
                {categoryTitle(c.key)}
              </text>
              <rect class="track" x={LABEL} y={y + 6} width={BAR} height={16} rx={4} />
              {length > 0 ? <rect class="bar" x={LABEL} y={y + 6} width={length} height={16} rx={4} /> : null}
              <text class="value" x={LABEL + BAR + 10} y={y + 19}>
                {c.answered === 0 ? 'no answers yet' : `${pct(c.score_pct)} · ${c.good} good, ${c.optimize} to optimize`}
              </text>
            </g>
          );
        })}
      </svg>
      <details>
        <summary>Show as a table</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Category</th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col" class="num">
                  Good
                </th>
                <th scope="col" class="num">
                  To optimize
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr>
                  <th scope="row">{categoryTitle(c.key)}</th>
                  <td class="num">{pct(c.score_pct)}</td>
                  <td class="num">{c.good}</td>
                  <td class="num">{c.optimize}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
