/**
 * The public share page behind `public_url` (contract 2.4, 5.5): the
 * report's aggregate picture only (score, per-category chart, counts,
 * freshness). It shows nothing personal: no names, profile URLs, findings of
 * a person, evidence or ids; the view it renders holds none.
 */
import type { PublicReportView } from '../../use-cases/report-view.js';
import { CategoryChart } from '../components/category-chart.js';
import { pct } from '../components/labels.js';
import { explainCoverage } from '../components/plain-words.js';
import { Layout, When } from '../components/layout.js';

export function PublicReportPage(props: { view: PublicReportView }) {
  const v = props.view;
  return (
    <Layout title={`${v.name} · ${v.companyName}`} noindex>
      <h1>{v.name}</h1>
      <p class="muted">A shared profile audit of {v.companyName}: aggregate results only.</p>
      <div class="summary">
        <div class="card">
          <p class="stat-label">Score</p>
          <p class="score">
            {pct(v.scorePct)} <small>good of answered checks</small>
          </p>
          <p class="muted">
            {v.counts.good} good · {v.counts.optimize} to optimize · {v.counts.unknown} unknown
          </p>
        </div>
        <div class="card">
          <p class="stat-label">People</p>
          <dl class="facts">
            <dt>On the report</dt>
            <dd>{v.personCount}</dd>
            <dt>Analyzed</dt>
            <dd>{v.analyzedCount}</dd>
          </dl>
        </div>
        <div class="card">
          <p class="stat-label">Coverage</p>
          <p>{explainCoverage({ people: v.personCount, analyzed: v.analyzedCount, scanning: v.scanning })}</p>
          {v.freshness.newest_captured_at ? (
            <p class="muted">
              Newest data <When at={v.freshness.newest_captured_at} />
            </p>
          ) : null}
        </div>
      </div>
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Scores by category</h2>
        {v.counts.answered === 0 ? <p class="muted">No answered checks yet.</p> : <CategoryChart id="public-categories" categories={v.categories} />}
      </section>
    </Layout>
  );
}
