/**
 * Two blocks of the report page, kept apart from its template: the line that
 * says which people the figures count when a group filter scopes them
 * (docs/web.md, "Groups"), and the list of trouble, each count a link to the
 * people concerned with what it means and what to do (docs/web.md, "Trouble").
 */
import type { GroupFigures } from '../../domain/group-summary.js';
import { parseGroup } from '../../use-cases/report-people.js';
import { paths } from '../paths.js';
import { troubleList, type PeopleStates, type Trouble } from './plain-words.js';

const people = (n: number) => (n === 1 ? '1 person' : `${n} people`);

/** Which people the page's figures count: the group filtered on, with a way back to the whole report and to the compare view. */
export function GroupScope(props: { reportId: string; group: string; figures: GroupFigures; totalPeople: number }) {
  const parsed = parseGroup(props.group);
  if (!parsed) return null;
  return (
    <p class="notice info" id="group-scope">
      <strong>
        {parsed.column}: {parsed.value}
      </strong>{' '}
      — the score, coverage, gaps and chart below count these {people(props.figures.coverage.person_profiles)} only, of {props.totalPeople} on the report.{' '}
      <a href={`${paths.report(props.reportId)}`}>Show the whole report</a> ·{' '}
      <a href={`${paths.reportCompare(props.reportId)}?by=${encodeURIComponent(parsed.column)}`}>Compare the {parsed.column} groups</a>
    </p>
  );
}

/** The people table filtered on one kind of trouble. */
function troubleHref(reportId: string, filter: Trouble['filter'], group: string): string {
  const params = new URLSearchParams();
  if (group) params.set('group', group);
  params.set('status', filter);
  return `${paths.report(reportId)}?${params.toString()}#people-heading`;
}

/** Every kind of trouble, its count linked to the people concerned, then what it means and what to do. */
/**
 * Trouble that asks for action stands at the top of the report (place "top"); trouble that is only
 * good to know stands under the people table (place "below"), so the first screen keeps the gaps and
 * the people.
 */
export function TroubleList(props: { reportId: string; states: PeopleStates; group: string; heading: string; place: 'top' | 'below' }) {
  const trouble = troubleList(props.states);
  if (trouble.length === 0) return null;
  const urgent = trouble.some((t) => t.action);
  if (urgent !== (props.place === 'top')) return null;
  return (
    <div class={urgent ? 'notice attention' : 'notice info no-print'} role="note" id="trouble">
      <p>
        <strong>{props.heading}</strong>
      </p>
      <ul>
        {trouble.map((t) => (
          <li data-trouble={t.filter}>
            <a href={troubleHref(props.reportId, t.filter, props.group)}>{t.lead}</a>
            {t.rest}
          </li>
        ))}
      </ul>
    </div>
  );
}
