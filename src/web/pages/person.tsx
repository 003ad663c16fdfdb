/**
 * A person's page: what to fix first (their gaps ranked by impact,
 * domain/fix-first.ts), then findings by category, gaps first and good
 * checks collapsed, with outcome, observed value,
 * recommendation (company placeholders filled in), source link and the
 * evidence images (preview inline, original on click), each labelled as
 * captured from the source or rendered from the observed data, then the
 * person's activity timeline. Every value from a scanned profile is text.
 */
import { CATEGORIES } from '../../domain/checks/catalog.js';
import type { ActivityRecord, FindingsRecord } from '../../domain/analysis-records.js';
import type { EvidenceOrigin } from '../../domain/collected.js';
import type { EvidenceDetails } from '../../use-cases/report-view.js';
import { fillCompanyPlaceholders } from '../../domain/recommendation-text.js';
import { fixFirst } from '../../domain/fix-first.js';
import { label, OUTCOME, PERSON_REASON, pct } from '../components/labels.js';
import { PERSON_ADVICE } from '../components/plain-words.js';
import { ActionButton, Breadcrumbs, Layout, type Viewer, When } from '../components/layout.js';
import { paths } from '../paths.js';

export interface PersonPageProps {
  csrf: string;
  viewer: Viewer;
  report: { id: string; name: string; company_name: string; archived: boolean };
  record: FindingsRecord;
  /** Supplied, else observed, else the profile's handle. */
  displayName: string;
  activity: ActivityRecord[];
  activityTruncated: boolean;
  /** Each evidence image's origin, section and sizes, by its url in the record. */
  evidence: Record<string, EvidenceDetails>;
}

type Check = NonNullable<FindingsRecord['analysis']>['checks'][number];

function observedText(value: unknown): string {
  if (value === null || value === undefined) return 'not observed';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

const EVENT: Record<string, string> = { post: 'Posted', repost: 'Reposted', comment: 'Commented', reaction: 'Reacted', unknown: 'Activity' };

/** "1 comment", "3 comments". */
function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** How each kind of evidence image is named on the page: a reader must always tell a capture from a card. */
const ORIGIN: Record<EvidenceOrigin, { label: string; hint: string; alt: string }> = {
  captured: { label: 'Captured', hint: 'taken from the source', alt: 'Captured image' },
  rendered: { label: 'Rendered card', hint: 'drawn from the observed data', alt: 'Evidence card' },
};

/** What each evidence section shows, as a reader names it. */
const SECTION: Record<string, string> = {
  top_card: 'the top of the profile',
  about: 'the About section',
  experience: 'the Experience section',
  skills: 'the Skills section',
  activity: 'the recent activity',
};

/**
 * A category's evidence, each image once: its preview at its own size (width
 * and height reserved, no layout shift), what it is (captured or rendered, of
 * which section) and which checks it is evidence for. Opening it shows the
 * original inside the page (a :target overlay: links, so keyboards and screen
 * readers use it, without JavaScript), with a link to the file itself.
 */
function EvidenceBlock(props: {
  category: string;
  images: { url: string; preview_url: string; usedBy: string[] }[];
  details: (url: string) => EvidenceDetails | undefined;
  figureId: (url: string) => string;
  name: (url: string) => string;
}) {
  if (props.images.length === 0) return null;
  return (
    <div class="evidence" role="group" aria-label={`Evidence for ${props.category}`}>
      {props.images.map((image) => {
        const d = props.details(image.url);
        const named = d ? ORIGIN[d.origin] : { label: 'Evidence', hint: '', alt: 'Evidence image' };
        const id = props.figureId(image.url);
        const what = `${named.alt} of ${d ? (SECTION[d.section] ?? 'the profile') : 'the profile'}`;
        return (
          <figure class={`evidence-item origin-${d?.origin ?? 'unknown'}`} id={id}>
            <a href={`#view-${id}`} aria-label={`${what}: open larger`}>
              <img src={image.preview_url} alt={what} loading="lazy" width={d?.preview?.width} height={d?.preview?.height} />
            </a>
            <figcaption>
              <span class={`badge origin ${d?.origin ?? 'unknown'}`}>{named.label}</span>
              {named.hint ? <span class="hint"> {named.hint}</span> : null}
              <span class="used-by">For: {image.usedBy.join(', ')}</span>
            </figcaption>
            <div class="lightbox" id={`view-${id}`} role="dialog" aria-label={what} tabindex={-1}>
              <div class="lightbox-body">
                <img src={image.url} alt={what} loading="lazy" width={d?.original?.width} height={d?.original?.height} />
                <p>
                  <a class="button" href={`#${id}`}>
                    Close
                  </a>{' '}
                  <a href={image.url}>Open the image file</a>
                </p>
              </div>
            </div>
          </figure>
        );
      })}
    </div>
  );
}

/** A person's page lists this many gaps under "Fix first"; every gap is in the findings below. */
const FIX_FIRST_SHOWN = 5;

/** Within a category: checks to optimize before unknown ones, each in catalog order. */
function gapsFirst(a: Check, b: Check): number {
  return (a.outcome === 'optimize' ? 0 : 1) - (b.outcome === 'optimize' ? 0 : 1);
}

export function PersonPage(props: PersonPageProps) {
  const { record, report } = props;
  const name = props.displayName;
  const checks = record.analysis?.checks ?? [];
  const byCategory = CATEGORIES.map((category) => ({
    category,
    checks: checks.filter((c: Check) => c.category.key === category.key),
  })).filter((g) => g.checks.length > 0);
  const checkByKey = new Map(checks.map((c: Check) => [c.key, c]));
  // Each evidence image is shown once, in the first category whose checks use it; checks link to it.
  const details = (url: string) => props.evidence[url] as EvidenceDetails | undefined;
  const figureId = (url: string) => `evidence-${details(url)?.id ?? encodeURIComponent(url).replace(/[^A-Za-z0-9_-]/g, '')}`;
  const evidenceName = (url: string) => {
    const d = details(url);
    return d ? `${ORIGIN[d.origin].alt.toLowerCase()} of ${SECTION[d.section] ?? 'the profile'}` : 'an image';
  };
  const shown = new Set<string>();
  const imagesOf = (own: Check[]) => {
    const images: { url: string; preview_url: string; usedBy: string[] }[] = [];
    for (const check of own) {
      for (const image of check.evidence.images) {
        const known = images.find((i) => i.url === image.url);
        if (known) known.usedBy.push(check.title);
        else if (!shown.has(image.url)) images.push({ ...image, usedBy: [check.title] });
      }
    }
    for (const image of images) shown.add(image.url);
    return images;
  };
  const toFix = fixFirst(checks);
  const checkItem = (check: Check) => (
    <li class={`outcome-${check.outcome}`} id={`check-${check.key}`}>
      <div class="check-head">
        <h4>{check.title}</h4>
        <span class={`badge ${check.outcome}`}>{label(OUTCOME, check.outcome)}</span>
      </div>
      <p>
        <span class="muted">Observed:</span> {observedText(check.observed_value)}
      </p>
      {check.recommendation && check.outcome !== 'good' ? (
        <p>
          <span class="muted">Recommendation:</span> {fillCompanyPlaceholders(check.recommendation, report.company_name)}
        </p>
      ) : null}
      <p>
        <a href={check.source_url} rel="noopener noreferrer">
          Source
        </a>
      </p>
      {check.evidence.images.length > 0 ? (
        <p class="evidence-links">
          <span class="muted">Evidence:</span>{' '}
          {check.evidence.images.map((image, i) => (
            <>
              {i > 0 ? ', ' : null}
              <a href={`#${figureId(image.url)}`}>{evidenceName(image.url)}</a>
            </>
          ))}
        </p>
      ) : null}
    </li>
  );
  return (
    <Layout title={`${name} · ${report.name}`} viewer={props.viewer} csrf={props.csrf} current="reports">
      <Breadcrumbs
        trail={[
          { href: paths.reports, label: 'Reports' },
          { href: paths.report(report.id), label: report.name },
        ]}
      />
      <h1>{name}</h1>
      <dl class="facts">
        {record.title ? (
          <>
            <dt>Title</dt>
            <dd>{record.title}</dd>
          </>
        ) : null}
        {record.headline ? (
          <>
            <dt>Headline</dt>
            <dd>{record.headline}</dd>
          </>
        ) : null}
        <dt>Profile</dt>
        <dd>
          <a href={record.pronet_url} rel="noopener noreferrer">
            {record.pronet_url}
          </a>
        </dd>
        <dt>Score</dt>
        <dd>
          {record.analysis
            ? `${pct(record.analysis.counts.score_pct)} (${record.analysis.counts.good} good, ` +
              `${record.analysis.counts.optimize} to optimize, ${record.analysis.counts.unknown} unknown)`
            : label(PERSON_REASON, record.reason)}
        </dd>
        {record.analysis ? (
          <>
            <dt>Captured</dt>
            <dd>
              <When at={record.analysis.captured_at} />
            </dd>
          </>
        ) : null}
      </dl>

      {record.analysis ? (
        <section aria-labelledby="fix-heading" class="card fix-card">
          <h2 id="fix-heading">Fix first</h2>
          {toFix.length === 0 ? (
            <p>Nothing to optimize: every check that could be answered is good.</p>
          ) : (
            <>
              <ol class="fix-list">
                {toFix.slice(0, FIX_FIRST_SHOWN).map((c) => (
                  <li>
                    <a href={`#check-${c.key}`}>{c.title}</a>
                    <span class="sub">{fillCompanyPlaceholders(checkByKey.get(c.key)?.recommendation ?? c.recommendation, report.company_name)}</span>
                  </li>
                ))}
              </ol>
              {toFix.length > FIX_FIRST_SHOWN ? <p class="muted">And {toFix.length - FIX_FIRST_SHOWN} more to optimize below.</p> : null}
            </>
          )}
        </section>
      ) : null}

      <section aria-labelledby="findings-heading">
        <h2 id="findings-heading">Findings</h2>
        {byCategory.length === 0 ? (
          <div class={`notice ${record.reason === 'scan_queued' || record.reason === 'scan_in_progress' ? 'info' : 'attention'}`} role="note">
            <p>
              <strong>{(PERSON_ADVICE[record.reason ?? ''] ?? { title: label(PERSON_REASON, record.reason) }).title}</strong>
            </p>
            {PERSON_ADVICE[record.reason ?? ''] ? <p>{PERSON_ADVICE[record.reason ?? ''].advice}</p> : null}
          </div>
        ) : null}
        {byCategory.map(({ category, checks: own }) => (
          <section aria-labelledby={`cat-${category.key}`}>
            <h3 id={`cat-${category.key}`}>{category.title}</h3>
            <ul class="checks">
              {own
                .filter((c: Check) => c.outcome !== 'good')
                .sort(gapsFirst)
                .map(checkItem)}
            </ul>
            {own.some((c: Check) => c.outcome === 'good') ? (
              <details class="good-checks">
                <summary>
                  {own.filter((c: Check) => c.outcome === 'good').length} good in {category.title}
                </summary>
                <ul class="checks">{own.filter((c: Check) => c.outcome === 'good').map(checkItem)}</ul>
              </details>
            ) : null}
            <EvidenceBlock category={category.title} images={imagesOf(own)} details={details} figureId={figureId} name={evidenceName} />
          </section>
        ))}
      </section>

      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Recent posts and comments</h2>
        {props.activity.length === 0 ? (
          <p class="muted">No stored activity. An empty list does not prove there is none: see the report's coverage.</p>
        ) : (
          <ol class="timeline">
            {props.activity.map((event) => (
              <li>
                <p>
                  <strong>{EVENT[event.event_type] ?? 'Activity'}</strong> · <When at={event.occurred_at} />
                  {event.source_url ? (
                    <>
                      {' · '}
                      <a href={event.source_url} rel="noopener noreferrer">
                        source
                      </a>
                    </>
                  ) : null}
                </p>
                {event.text ? <p class="text">{event.text}</p> : null}
                <p class="muted">
                  {[
                    event.counts.reactions !== null ? counted(event.counts.reactions, 'reaction', 'reactions') : null,
                    event.counts.comments !== null ? counted(event.counts.comments, 'comment', 'comments') : null,
                    event.counts.reposts !== null ? counted(event.counts.reposts, 'repost', 'reposts') : null,
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </p>
              </li>
            ))}
          </ol>
        )}
        {props.activityTruncated ? <p class="muted">Showing the latest {props.activity.length} events.</p> : null}
      </section>

      {!report.archived ? (
        <section class="card" aria-labelledby="remove-heading">
          <h2 id="remove-heading">Remove from the report</h2>
          <p class="hint">The person's details and history are kept; importing the same profile again restores them.</p>
          <ActionButton action={paths.personRemove(report.id, record.profile_id)} csrf={props.csrf} label="Remove this person" danger />
        </section>
      ) : null}
    </Layout>
  );
}
