/**
 * A person's page: what to fix first (their gaps ranked by impact,
 * domain/fix-first.ts), then findings by category, gaps first and good
 * checks collapsed, with outcome, observed value,
 * recommendation (company placeholders filled in), source link and the
 * evidence images (preview inline, original on click), each labelled as
 * captured from the source or rendered from the observed data, with the area
 * a finding is about outlined on a rendered card, then the
 * person's activity timeline. Every value from a scanned profile is text.
 * The same page is what a private link shows (`shared`), without navigation
 * or actions.
 */
import { CATEGORIES, CHECKS } from '../../domain/checks/catalog.js';
import { CARD_UNITS, markedArea, type AreaDefinition, type EvidenceArea } from '../../domain/evidence-areas.js';
import type { ActivityRecord, FindingsRecord } from '../../domain/analysis-records.js';
import type { EvidenceOrigin } from '../../domain/collected.js';
import type { EvidenceDetails } from '../../use-cases/report-view.js';
import { fillCompanyPlaceholders } from '../../domain/recommendation-text.js';
import { personalFixFirst, type CommonGap } from '../../domain/fix-first.js';
import { observedValueText } from '../../domain/observed-value.js';
import { label, OUTCOME, PERSON_REASON, pct } from '../components/labels.js';
import { PERSON_ADVICE, SHARED_PERSON_ADVICE } from '../components/plain-words.js';
import { ActionButton, Notice, Breadcrumbs, CsrfField, Layout, type Viewer, When } from '../components/layout.js';
import { can } from '../../domain/permissions.js';
import { LINK_DAYS_DEFAULT, LINK_DAYS_MAX } from '../../use-cases/person-links.js';
import { paths } from '../paths.js';
import type { PersonProgressView } from '../../use-cases/progress.js';
import { PersonProgressSection } from '../components/progress.js';

export interface PersonPageProps {
  /** The signed-in page's; absent on a private link's page. */
  csrf?: string;
  viewer?: Viewer;
  /**
   * Seen through a private link (use-cases/person-links.ts): the person's
   * own page only, with no link to the report, colleagues, the CSV or any
   * other page of the workspace, and no action.
   */
  shared?: boolean;
  report: { id: string; name: string; company_name: string; archived: boolean };
  record: FindingsRecord;
  /** Supplied, else observed, else the profile's handle. */
  displayName: string;
  /** The other columns the CSV import carried (department, office …). */
  columns: Readonly<Record<string, string>>;
  activity: ActivityRecord[];
  activityTruncated: boolean;
  /** Each evidence image's origin, section and sizes, by its url in the record. */
  evidence: Record<string, EvidenceDetails>;
  /** The company's name in advice (domain/company-name.ts). */
  companyDisplayName: string;
  /** The report's team actions, left out of this person's fix-first list and named once. */
  teamActions: CommonGap[];
  /** The web's score by impact weight. */
  weightedScorePct: number | null;
  /** Whether their activity was read (and so an empty list means none), could not be, or not yet. */
  activityRead: 'observed' | 'gap' | 'not_yet';
  /** What the request that led here did (a refresh queued). */
  notice?: string;
  /** Their trend and what changed since their previous scan (components/progress.tsx). */
  progress?: PersonProgressView;
}

/** What an empty activity list means: verified as none, or not known. */
const ACTIVITY_EMPTY: Record<PersonPageProps['activityRead'], string> = {
  observed: 'No posts or comments: the scan read their public activity and found none.',
  gap: 'Their activity could not be read in the latest scan, so it is not known whether they post. Scanning again later may read it.',
  not_yet: 'Their activity has not been read yet.',
};

type Check = NonNullable<FindingsRecord['analysis']>['checks'][number];

const EVENT: Record<string, string> = { post: 'Posted', repost: 'Reposted', comment: 'Commented', reaction: 'Reacted', unknown: 'Activity' };

/** "1 comment", "3 comments". */
function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

const AREA_OF = new Map(CHECKS.map((c) => [c.key, c.evidence_area]));
/** The area of its evidence a check looks at (the catalog's evidence_area). */
function areaOf(key: string): EvidenceArea | null {
  return AREA_OF.get(key) ?? null;
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

/** A check as the evidence of a page names it: its title, outcome and the area of the image it looks at. */
interface EvidenceUse {
  title: string;
  outcome: Check['outcome'];
  area: EvidenceArea | null;
}

/**
 * An image with the areas of `boxes` outlined over it (an SVG in the card's
 * layout units, stretched over the image: no script, no inline style). The
 * outline is decoration (aria-hidden): the caption beside it names the areas.
 */
function Marked(props: { src: string; alt: string; size: { width: number; height: number } | null; boxes: AreaDefinition[]; lazy?: boolean }) {
  const img = <img src={props.src} alt={props.alt} loading={props.lazy === false ? undefined : 'lazy'} width={props.size?.width} height={props.size?.height} />;
  if (props.boxes.length === 0) return img;
  return (
    <span class="marked">
      {img}
      <svg class="areas" viewBox={`0 0 ${CARD_UNITS.width} ${CARD_UNITS.height}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        {props.boxes.map((b) => (
          <rect x={b.x} y={b.y} width={b.width} height={b.height} rx="6" />
        ))}
      </svg>
    </span>
  );
}

/** The distinct boxes of the checks' areas on this image (rendered cards only: evidence-areas.ts). */
function boxesOn(details: EvidenceDetails | undefined, uses: readonly EvidenceUse[]): AreaDefinition[] {
  if (!details) return [];
  const boxes = uses.map((use) => markedArea(details, use.area)).filter((box) => box !== null);
  return [...new Set(boxes)];
}

/** "Outlined: the headline and the banner." — what the outline on an image shows, in words. */
function outlinedText(boxes: readonly AreaDefinition[], what: string): string | null {
  if (boxes.length === 0) return null;
  const labels = boxes.map((b) => b.label);
  const list = labels.length === 1 ? labels[0] : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
  return `Outlined: ${list} (${what}).`;
}

/**
 * A category's evidence, each image once: its preview at its own size (width
 * and height reserved, no layout shift), what it is (captured or rendered, of
 * which section), which checks it is evidence for, and, on a rendered card,
 * the areas of the checks to optimize outlined. Opening it shows the
 * original inside the page (a :target overlay: links, so keyboards and screen
 * readers use it, without JavaScript), with a link to the file itself.
 */
function EvidenceBlock(props: {
  category: string;
  images: { url: string; preview_url: string; usedBy: EvidenceUse[] }[];
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
        const boxes = boxesOn(
          d,
          image.usedBy.filter((use) => use.outcome === 'optimize'),
        );
        const outlined = outlinedText(boxes, 'to optimize');
        return (
          <figure class={`evidence-item origin-${d?.origin ?? 'unknown'}`} id={id}>
            <a href={`#view-${id}`} aria-label={`${what}: open larger`}>
              <Marked src={image.preview_url} alt={what} size={d?.preview ?? null} boxes={boxes} />
            </a>
            <figcaption>
              <span class={`badge origin ${d?.origin ?? 'unknown'}`}>{named.label}</span>
              {named.hint ? <span class="hint"> {named.hint}</span> : null}
              <span class="used-by">For: {image.usedBy.map((use) => use.title).join(', ')}</span>
              {outlined ? <span class="outlined">{outlined}</span> : null}
            </figcaption>
            <div class="lightbox" id={`view-${id}`} role="dialog" aria-label={what} tabindex={-1}>
              <div class="lightbox-body">
                <Marked src={image.url} alt={what} size={d?.original ?? null} boxes={boxes} />
                {outlined ? <p>{outlined}</p> : null}
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

/**
 * One check's evidence, opened from the check: each image with the area the
 * check looks at outlined (a rendered card), or said to be the whole image (a
 * capture), in an overlay inside the page like the category's evidence.
 */
function CheckEvidence(props: {
  check: Check;
  area: EvidenceArea | null;
  details: (url: string) => EvidenceDetails | undefined;
  name: (url: string) => string;
}) {
  const { check } = props;
  if (check.evidence.images.length === 0) return null;
  return (
    <p class="evidence-links">
      <span class="muted">Evidence:</span>{' '}
      {check.evidence.images.map((image, i) => {
        const d = props.details(image.url);
        const id = `view-${check.key.replace(/[^a-z0-9_-]/gi, '-')}-${i}`;
        const box = d ? markedArea(d, props.area) : null;
        const what = props.name(image.url);
        return (
          <>
            {i > 0 ? ', ' : null}
            <a class="evidence-open" href={`#${id}`}>
              {what}
            </a>
            <span class="lightbox" id={id} role="dialog" aria-label={`${check.title}: ${what}`} tabindex={-1}>
              <span class="lightbox-body">
                <Marked src={image.url} alt={what} size={d?.original ?? null} boxes={box ? [box] : []} />
                <span class="lightbox-caption">
                  {box
                    ? `Outlined: ${box.label}, what “${check.title}” looks at.`
                    : d?.origin === 'captured'
                      ? `Captured from the source: the image as a whole is the evidence for “${check.title}”.`
                      : `The evidence for “${check.title}”.`}
                </span>
                <span class="lightbox-actions">
                  <a class="button" href={`#check-${check.key}`}>
                    Close
                  </a>{' '}
                  <a href={image.url}>Open the image file</a>
                </span>
              </span>
            </span>
          </>
        );
      })}
    </p>
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
  // Every check that uses each image, in catalog order: an image is shown once, but for all of them.
  const usesOf = new Map<string, EvidenceUse[]>();
  for (const check of checks) {
    for (const image of check.evidence.images) {
      const uses = usesOf.get(image.url) ?? [];
      uses.push({ title: check.title, outcome: check.outcome, area: areaOf(check.key) });
      usesOf.set(image.url, uses);
    }
  }
  const shown = new Set<string>();
  const imagesOf = (own: Check[]) => {
    const images: { url: string; preview_url: string; usedBy: EvidenceUse[] }[] = [];
    for (const image of own.flatMap((check) => check.evidence.images)) {
      if (shown.has(image.url)) continue;
      shown.add(image.url);
      images.push({ ...image, usedBy: usesOf.get(image.url) ?? [] });
    }
    return images;
  };
  const team = new Set(props.teamActions.map((gap) => gap.check.key));
  const toFix = personalFixFirst(checks, team);
  const company = props.companyDisplayName;
  // The team's actions this person also has: named once, not ranked among their own fixes.
  const myTeamActions = props.teamActions.map((gap) => gap.check).filter((c) => checkByKey.get(c.key)?.outcome === 'optimize');
  const checkItem = (check: Check) => (
    <li class={`outcome-${check.outcome}`} id={`check-${check.key}`}>
      <div class="check-head">
        <h4>{check.title}</h4>
        <span class={`badge ${check.outcome}`}>{label(OUTCOME, check.outcome)}</span>
      </div>
      <p>
        <span class="muted">Observed:</span> {observedValueText(check.key, check.observed_value)}
      </p>
      {check.recommendation && check.outcome !== 'good' ? (
        <p>
          <span class="muted">Recommendation:</span> {fillCompanyPlaceholders(check.recommendation, company)}
        </p>
      ) : null}
      <p>
        <a href={check.source_url} rel="noopener noreferrer">
          Source
        </a>
      </p>
      <CheckEvidence check={check} area={areaOf(check.key)} details={details} name={evidenceName} />
    </li>
  );
  return (
    <Layout
      title={props.shared ? `${name} · ${props.companyDisplayName}` : `${name} · ${report.name}`}
      viewer={props.shared ? null : props.viewer}
      csrf={props.csrf}
      current="reports"
      bare={props.shared}
      noindex={props.shared}
    >
      {props.shared ? null : (
        <Breadcrumbs
          trail={[
            { href: paths.reports, label: 'Reports' },
            { href: paths.report(report.id), label: report.name },
          ]}
        />
      )}
      <h1>{name}</h1>
      {props.shared ? (
        <p>Your profile as checked for {company}: your score, what to fix first and the evidence behind each finding. This page is only for you.</p>
      ) : null}
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
        {Object.entries(props.columns).map(([column, value]) => (
          <>
            <dt>{column}</dt>
            <dd>{value}</dd>
          </>
        ))}
        <dt>Profile</dt>
        <dd>
          <a href={record.pronet_url} rel="noopener noreferrer">
            {record.pronet_url}
          </a>
        </dd>
        <dt>Score</dt>
        <dd id="person-score">
          {record.analysis ? (
            <>
              <strong>{pct(props.weightedScorePct)}</strong> weighted by impact{' '}
              <span class="muted">
                ({pct(record.analysis.counts.score_pct)} of answered checks good: {record.analysis.counts.good} good, {record.analysis.counts.optimize} to
                optimize, {record.analysis.counts.unknown} unknown)
              </span>
            </>
          ) : (
            label(PERSON_REASON, record.reason)
          )}
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

      {props.progress && record.analysis ? <PersonProgressSection trend={props.progress.trend} progress={props.progress.progress} /> : null}

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
                    <span class="sub">{fillCompanyPlaceholders(checkByKey.get(c.key)?.recommendation ?? c.recommendation, company)}</span>
                    <span class="sub observed">Now: {observedValueText(c.key, checkByKey.get(c.key)?.observed_value)}</span>
                  </li>
                ))}
              </ol>
              {toFix.length > FIX_FIRST_SHOWN ? (
                <>
                  <p class="muted screen-only">And {toFix.length - FIX_FIRST_SHOWN} more to optimize below.</p>
                  <div class="print-only other-gaps">
                    <h3>Other gaps</h3>
                    <ul>
                      {toFix.slice(FIX_FIRST_SHOWN).map((c) => (
                        <li>
                          {c.title}: {observedValueText(c.key, checkByKey.get(c.key)?.observed_value)}
                        </li>
                      ))}
                    </ul>
                  </div>
                </>
              ) : null}
            </>
          )}
          {myTeamActions.length > 0 ? (
            <p class="team-note" id="team-actions-note">
              <span class="muted">With the whole team, not on this list:</span> {myTeamActions.map((c) => c.title).join(', ')}.
            </p>
          ) : null}
        </section>
      ) : null}

      <section aria-labelledby="findings-heading" class="no-print">
        <h2 id="findings-heading">Findings</h2>
        {byCategory.length === 0 ? (
          <div class={`notice ${record.reason === 'scan_queued' || record.reason === 'scan_in_progress' ? 'info' : 'attention'}`} role="note">
            <p>
              <strong>{(PERSON_ADVICE[record.reason ?? ''] ?? { title: label(PERSON_REASON, record.reason) }).title}</strong>
            </p>
            {PERSON_ADVICE[record.reason ?? ''] ? (
              <p>{(props.shared ? SHARED_PERSON_ADVICE[record.reason ?? ''] : undefined) ?? PERSON_ADVICE[record.reason ?? ''].advice}</p>
            ) : null}
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

      <section aria-labelledby="activity-heading" class="no-print">
        <h2 id="activity-heading">Recent posts and comments</h2>
        {props.activity.length === 0 ? (
          <p class="muted" id="activity-empty">
            {ACTIVITY_EMPTY[props.activityRead]}
          </p>
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

      {!report.archived && props.viewer && props.csrf && !props.shared && can(props.viewer.role, 'share_report') ? (
        <section class="card" aria-labelledby="share-person-heading">
          <h2 id="share-person-heading">Share with this person</h2>
          <p class="hint">A private link opens this page only, without signing in: no colleague, no report, no CSV.</p>
          <form method="post" action={paths.reportLinks(report.id)} class="stack">
            <CsrfField token={props.csrf} />
            <input type="hidden" name="person" value={record.profile_id} />
            <label for="link-days">Valid for (days)</label>
            <input id="link-days" name="days" type="number" min={1} max={LINK_DAYS_MAX} value={String(LINK_DAYS_DEFAULT)} inputMode="numeric" />
            <button type="submit">Create a private link</button>
          </form>
        </section>
      ) : null}

      {!report.archived && props.viewer && props.csrf && !props.shared && can(props.viewer.role, 'refresh_report') ? (
        <section class="card no-print" aria-labelledby="refresh-heading">
          <h2 id="refresh-heading">Scan again</h2>
          {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
          <p class="hint">
            After the person edited their profile: their profile and activity are scanned again. The results above stay until the new scan finishes.
          </p>
          <ActionButton action={paths.personRefresh(report.id, record.profile_id)} csrf={props.csrf} label={`Scan ${props.displayName} again`} />
        </section>
      ) : null}

      {!report.archived && props.viewer && props.csrf && !props.shared && can(props.viewer.role, 'remove_person') ? (
        <section class="card" aria-labelledby="remove-heading">
          <h2 id="remove-heading">Remove from the report</h2>
          <p class="hint">The person's details and history are kept; importing the same profile again restores them.</p>
          <ActionButton action={paths.personRemove(report.id, record.profile_id)} csrf={props.csrf} label="Remove this person" danger />
        </section>
      ) : null}

      {props.viewer && props.csrf && !props.shared && can(props.viewer.role, 'erase_person') ? (
        <section class="card" aria-labelledby="personal-data-heading">
          <h2 id="personal-data-heading">Personal data</h2>
          <p class="hint">For an access or erasure request: export everything stored about this person on this report, or erase it for good.</p>
          <p>
            <a class="button secondary" href={paths.personExport(report.id, record.profile_id)} download>
              Export stored data (JSON)
            </a>
          </p>
          <ActionButton action={paths.personErase(report.id, record.profile_id)} csrf={props.csrf} label="Erase this person" danger />
        </section>
      ) : null}
    </Layout>
  );
}
