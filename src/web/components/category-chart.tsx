/**
 * Per-category scores as a bar chart in plain HTML (no chart script): one row
 * per category, worst first, its bar the share of answered checks that are
 * good, a <meter> coloured by that score (under 40 % low, under 70 % fair,
 * else good: the number is always written beside it, so colour is never the
 * only cue; the CSP allows no inline style, and a meter needs none). Text stays at the page's size
 * on a phone, where the bars stack under their labels. It is a list, so
 * screen readers read each category's name and numbers in order.
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

/** The colour band of a score: under 40 % low, under 70 % fair, else good. */
export function scoreBand(score: number | null): 'none' | 'low' | 'fair' | 'good' {
  if (score === null) return 'none';
  return score < 40 ? 'low' : score < 70 ? 'fair' : 'good';
}

/** Worst first; categories without answers last; ties in catalog order. */
export function worstFirst<T extends { score_pct: number | null }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => (a.score_pct ?? Infinity) - (b.score_pct ?? Infinity));
}

export function CategoryChart(props: { id: string; categories: CategoryScore[] }) {
  return (
    <ol class="bars" id={props.id} aria-label="Score by category, worst first">
      {worstFirst(props.categories).map((c) => (
        <li class={`bar-row band-${scoreBand(c.score_pct)}`}>
          <span class="bar-label">{categoryTitle(c.key)}</span>
          <meter class="bar-meter" min={0} max={100} low={40} high={70} optimum={100} value={c.score_pct ?? 0} aria-hidden="true" />
          <span class="bar-value">
            {c.answered === 0 ? (
              'no answers yet'
            ) : (
              <>
                <strong>{pct(c.score_pct)}</strong> · {c.good} good, {c.optimize} to optimize
              </>
            )}
          </span>
        </li>
      ))}
    </ol>
  );
}
