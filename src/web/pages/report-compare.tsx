/**
 * Compare groups (docs/web.md, "Groups"): two to five groups of one imported
 * column side by side, a column each: people, analyzed, score, activity,
 * each category's score (worst of the first group first) and the most
 * common gaps, each group's name a link to the report filtered on it. The
 * figures are use-cases/report-groups.ts's; the CSV link exports them.
 */
import { COMPARE_MAX_GROUPS, COMPARE_MIN_GROUPS } from '../../domain/group-summary.js';
import { groupValue } from '../../use-cases/report-people.js';
import type { Comparison } from '../../use-cases/report-groups.js';
import { categoryTitle, scoreBand, worstFirst } from '../components/category-chart.js';
import { pct } from '../components/labels.js';
import { Breadcrumbs, Layout, Notice, type Viewer } from '../components/layout.js';
import { paths } from '../paths.js';
import { peopleQueryString } from './report.js';

export interface ComparePageProps extends Comparison {
  csrf: string;
  viewer: Viewer;
}

/** The compare view's query: the column and the values chosen. */
export function compareQueryString(column: string, values: readonly string[]): string {
  const params = new URLSearchParams();
  if (column) params.set('by', column);
  for (const value of values) params.append('value', value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const people = (n: number) => (n === 1 ? '1 person' : `${n} people`);

export function ComparePage(props: ComparePageProps) {
  const { report, groups, column } = props;
  const choices = props.columns.find((c) => c.column === column)?.values ?? [];
  const first = groups[0];
  const categories = first ? worstFirst(first.optimization.categories).map((c) => c.key) : [];
  return (
    <Layout title={`Compare groups: ${report.name}`} viewer={props.viewer} csrf={props.csrf} current="reports">
      <Breadcrumbs
        trail={[
          { href: paths.reports, label: 'Reports' },
          { href: paths.report(report.id), label: report.name },
        ]}
      />
      <h1>Compare groups</h1>
      <p class="muted">
        {report.name} · {people(props.totalPeople)}. Each group's figures are counted over its own people only.
      </p>

      {props.columns.length > 0 ? (
        <form method="get" action={paths.reportCompare(report.id)} class="card stack no-print" aria-label="Choose the groups to compare">
          <div>
            <label for="by">Group by</label>{' '}
            <select id="by" name="by">
              {props.columns.map((c) => (
                <option value={c.column} selected={c.column === column}>
                  {c.column}
                </option>
              ))}
            </select>
          </div>
          {choices.length > 0 ? (
            <fieldset>
              <legend>
                Groups to compare ({COMPARE_MIN_GROUPS} to {COMPARE_MAX_GROUPS})
              </legend>
              <div class="choice-grid">
                {choices.map((value, i) => (
                  <label for={`value-${i}`} class="choice">
                    <input id={`value-${i}`} type="checkbox" name="value" value={value} checked={props.values.includes(value)} /> {value}
                  </label>
                ))}
              </div>
            </fieldset>
          ) : null}
          <p class="hint">Changing "Group by" shows its largest groups; tick other groups and compare again to choose.</p>
          <div>
            <button type="submit">Compare</button>
          </div>
        </form>
      ) : null}

      {props.problem ? (
        <Notice kind="info">{props.problem}</Notice>
      ) : (
        <section aria-labelledby="compare-heading">
          <div class="toolbar">
            <h2 id="compare-heading">By {column}</h2>
            <span class="spacer" />
            <a class="button secondary no-print" href={`${paths.reportGroupsCsv(report.id)}${compareQueryString(column, props.values)}`} download>
              Download CSV
            </a>
          </div>
          <div class="table-wrap">
            <table class="compare">
              <caption class="visually-hidden">Figures of each {column} compared</caption>
              <thead>
                <tr>
                  <td />
                  {groups.map((g) => (
                    <th scope="col">
                      <a href={`${paths.report(report.id)}${peopleQueryString({ group: groupValue(column, g.value!) })}`}>{g.value}</a>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">People</th>
                  {groups.map((g) => (
                    <td class="num">{g.coverage.person_profiles}</td>
                  ))}
                </tr>
                <tr>
                  <th scope="row">Profiles analyzed</th>
                  {groups.map((g) => (
                    <td class="num">
                      {g.coverage.optimization.analyzed_profiles} of {g.coverage.person_profiles}
                    </td>
                  ))}
                </tr>
                <tr>
                  <th scope="row">
                    Score <span class="sub">good of answered checks</span>
                  </th>
                  {groups.map((g) => (
                    <td class={`num score-cell band-${scoreBand(g.optimization.counts.score_pct)}`}>
                      <strong>{pct(g.optimization.counts.score_pct)}</strong>
                      <span class="sub">
                        {g.optimization.counts.good} good · {g.optimization.counts.optimize} to optimize · {g.optimization.counts.unknown} unknown
                      </span>
                    </td>
                  ))}
                </tr>
                <tr>
                  <th scope="row">Activity read</th>
                  {groups.map((g) => (
                    <td class="num">
                      {g.coverage.activity.observed_person_profiles} of {g.coverage.person_profiles}
                    </td>
                  ))}
                </tr>
                {categories.map((key) => (
                  <tr>
                    <th scope="row">{categoryTitle(key)}</th>
                    {groups.map((g) => {
                      const c = g.optimization.categories.find((x) => x.key === key)!;
                      return (
                        <td class={`num bar-cell band-${scoreBand(c.score_pct)}`}>
                          {c.answered === 0 ? (
                            <span class="muted">no answers</span>
                          ) : (
                            <>
                              <strong>{pct(c.score_pct)}</strong>
                              <meter class="bar-meter" min={0} max={100} low={40} high={70} optimum={100} value={c.score_pct ?? 0} aria-hidden="true" />
                            </>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
                <tr>
                  <th scope="row">Most common gaps</th>
                  {groups.map((g) => (
                    <td class="gaps-cell">
                      {g.gaps.length === 0 ? (
                        <span class="muted">{g.coverage.optimization.analyzed_profiles === 0 ? 'Nobody analyzed yet' : 'Nothing to optimize'}</span>
                      ) : (
                        <ol>
                          {g.gaps.map((gap) => (
                            <li>
                              <a
                                href={`${paths.report(report.id)}${peopleQueryString({ group: groupValue(column, g.value!), check: gap.check.key, outcome: 'optimize' })}#people-heading`}
                              >
                                {gap.check.title}
                              </a>{' '}
                              <span class="sub">
                                {gap.people} of {g.coverage.optimization.analyzed_profiles} · {Math.round(gap.share * 100)} %
                              </span>
                            </li>
                          ))}
                        </ol>
                      )}
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
          </div>
        </section>
      )}
    </Layout>
  );
}
