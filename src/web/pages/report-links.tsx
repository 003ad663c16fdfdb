/**
 * A report's private links (use-cases/person-links.ts): make one for a
 * person or for everyone, with the days it lasts; the links just made, each
 * shown once to copy; and every link of the report with who it is for, when
 * it was made, when it expires and when it was last opened, to revoke one or
 * all.
 */
import type { CreatedLink, PersonLinkListing } from '../../use-cases/person-links.js';
import { LINK_DAYS_DEFAULT, LINK_DAYS_MAX } from '../../use-cases/person-links.js';
import { ActionButton, Breadcrumbs, CopyField, CsrfField, Layout, Notice, type Viewer, When } from '../components/layout.js';
import { paths } from '../paths.js';

export interface ReportLinksProps {
  csrf: string;
  viewer: Viewer;
  report: { id: string; name: string; archived: boolean };
  people: { profile_id: string; display_name: string }[];
  links: PersonLinkListing[];
  /** Links just made, with their full address (shown this once). */
  created?: (CreatedLink & { url: string })[];
  notice?: string;
  error?: string;
}

const STATE: Record<PersonLinkListing['state'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

export function ReportLinksPage(props: ReportLinksProps) {
  const { report } = props;
  const live = props.links.filter((l) => l.state === 'active').length;
  return (
    <Layout title={`Private links · ${report.name}`} viewer={props.viewer} csrf={props.csrf} current="reports" scripts={['copy.js']}>
      <Breadcrumbs
        trail={[
          { href: paths.reports, label: 'Reports' },
          { href: paths.report(report.id), label: report.name },
        ]}
      />
      <h1>Private links</h1>
      <p>
        A private link opens one person's own page of this report (their score, what to fix first with advice, and the evidence) without signing in. It shows no
        colleague, no other page and no CSV. Send each person their own link.
      </p>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}

      {props.created && props.created.length > 0 ? (
        <section class="card" aria-labelledby="created-heading">
          <h2 id="created-heading">{props.created.length === 1 ? 'The new link' : `${props.created.length} new links`}</h2>
          <Notice kind="info">Copy them now: they are shown only once. Anyone with a link sees that person's page until it expires or is revoked.</Notice>
          {props.created.map((link, i) => (
            <CopyField id={`new-link-${i}`} label={`${link.name} (expires ${link.expiresAt.toISOString().slice(0, 10)})`} value={link.url} />
          ))}
          <form method="post" action={paths.reportLinksExport(report.id)} class="toolbar" id="links-export">
            <CsrfField token={props.csrf} />
            {props.created.map((link) => (
              <input type="hidden" name="token" value={link.token} />
            ))}
            <p class="hint">
              For a mail merge: these people with their link in a "Private link" column, their score and first three fixes. Only now: the links cannot be shown
              again later.
            </p>
            <button type="submit" name="format" value="csv" class="secondary">
              Download CSV with these links
            </button>
            <button type="submit" name="format" value="xlsx" class="secondary">
              Download Excel (.xlsx) with these links
            </button>
          </form>
        </section>
      ) : null}

      {report.archived ? (
        <p class="card">The report is archived: unarchive it to make private links. Its links do not open while it is archived.</p>
      ) : (
        <section class="card" aria-labelledby="create-heading">
          <h2 id="create-heading">Make links</h2>
          <form method="post" action={paths.reportLinks(report.id)} class="stack">
            <CsrfField token={props.csrf} />
            <label for="link-person">For</label>
            <select id="link-person" name="person">
              <option value="everyone">Everyone on the report ({props.people.length})</option>
              {props.people.map((p) => (
                <option value={p.profile_id}>{p.display_name}</option>
              ))}
            </select>
            <label for="link-days">Valid for (days, 1 to {LINK_DAYS_MAX})</label>
            <input id="link-days" name="days" type="number" min={1} max={LINK_DAYS_MAX} value={String(LINK_DAYS_DEFAULT)} inputMode="numeric" />
            <button type="submit">Make private links</button>
          </form>
        </section>
      )}

      <section aria-labelledby="links-heading">
        <div class="toolbar">
          <h2 id="links-heading">Links of this report</h2>
          <span class="spacer" />
          {live > 0 ? <ActionButton action={paths.reportLinksRevokeAll(report.id)} csrf={props.csrf} label={`Revoke all ${live} active`} danger /> : null}
        </div>
        {props.links.length === 0 ? (
          <p class="muted">No private links yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Made</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last opened</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="visually-hidden">Action</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.links.map((l) => (
                  <tr>
                    <td>{l.name ?? <span class="muted">removed from the report</span>}</td>
                    <td>
                      <When at={l.createdAt} />
                    </td>
                    <td>
                      <When at={l.expiresAt} />
                    </td>
                    <td>{l.lastOpenedAt ? <When at={l.lastOpenedAt} /> : <span class="muted">never</span>}</td>
                    <td>{STATE[l.state]}</td>
                    <td>
                      {l.state === 'active' ? (
                        <ActionButton
                          action={paths.reportLinkRevoke(report.id, l.id)}
                          csrf={props.csrf}
                          label="Revoke"
                          ariaLabel={`Revoke the link for ${l.name ?? 'a removed person'}`}
                        />
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}
