/**
 * The frame of every page: document head (own stylesheet only, no external
 * asset), a skip link, the signed-in header with navigation and sign-out,
 * and the main landmark.
 */
import type { ComponentChildren } from 'preact';
import type { Role } from '../../domain/web-tokens.js';
import { paths } from '../paths.js';

export interface Viewer {
  name: string;
  workspaceName: string;
  role: Role;
  /** The current workspace and every workspace of the account: the header's switcher (absent: the name alone). */
  workspaceId?: string;
  workspaces?: { id: string; name: string }[];
}

export interface PageFrame {
  title: string;
  /** The CSRF token for the header's sign-out form; absent on signed-out pages. */
  csrf?: string;
  viewer?: Viewer | null;
  current?: 'reports' | 'settings' | 'account';
  /** Scripts of this page, served from /assets (live progress only). */
  scripts?: string[];
  noindex?: boolean;
  /** The page's meta description (a generic one when unset). */
  description?: string;
  /** A page seen through a private link: no navigation at all, the brand is not a link. */
  bare?: boolean;
}

export function Layout(props: PageFrame & { children: ComponentChildren }) {
  const { viewer } = props;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta
          name="description"
          content={props.description ?? "profile-scan: audit the professional profiles of a company's people and see what each should fix first."}
        />
        {props.noindex ? <meta name="robots" content="noindex" /> : null}
        <title>{`${props.title} · profile-scan`}</title>
        <link rel="stylesheet" href={paths.asset('app.css')} />
        {(props.scripts ?? []).map((s) => (
          <script src={paths.asset(s)} defer />
        ))}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          {props.bare ? (
            <span class="brand">profile-scan</span>
          ) : (
            <a class="brand" href={viewer ? paths.reports : '/'}>
              profile-scan
            </a>
          )}
          {viewer ? (
            <nav aria-label="Workspace">
              <ul>
                <li>
                  <a href={paths.reports} aria-current={props.current === 'reports' ? 'page' : undefined}>
                    Reports
                  </a>
                </li>
                <li>
                  <a href={paths.settings} aria-current={props.current === 'settings' ? 'page' : undefined}>
                    Settings
                  </a>
                </li>
                <li>
                  <a href={paths.account} aria-current={props.current === 'account' ? 'page' : undefined}>
                    {viewer.name}
                  </a>
                </li>
                <li>
                  <form method="post" action={paths.signOut} class="inline">
                    <input type="hidden" name="_csrf" value={props.csrf} />
                    <button type="submit" class="link">
                      Sign out
                    </button>
                  </form>
                </li>
              </ul>
            </nav>
          ) : null}
          {viewer ? <WorkspaceSwitcher viewer={viewer} csrf={props.csrf} /> : null}
        </header>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/**
 * The current workspace's name; with several workspaces, a form that
 * switches to another (no script: a select and a button), and the way to
 * the list of workspaces (where a new one is created).
 */
function WorkspaceSwitcher(props: { viewer: Viewer; csrf?: string }) {
  const { viewer } = props;
  const others = viewer.workspaces ?? [];
  if (others.length < 2 || !props.csrf) {
    return (
      <p class="workspace-name">
        {viewer.workspaceName}
        {viewer.workspaces ? (
          <>
            {' · '}
            <a href={paths.workspaces}>Workspaces</a>
          </>
        ) : null}
      </p>
    );
  }
  return (
    <div class="workspace-name">
      <p class="print-only">{viewer.workspaceName}</p>
      <form method="post" action={paths.workspaceSwitch} class="switcher">
        <input type="hidden" name="_csrf" value={props.csrf} />
        <label for="switch-workspace" class="visually-hidden">
          Current workspace
        </label>
        <select id="switch-workspace" name="workspace">
          {others.map((w) => (
            <option value={w.id} selected={w.id === viewer.workspaceId}>
              {w.name}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary">
          Switch
        </button>
        <a href={paths.workspaces}>All workspaces</a>
      </form>
    </div>
  );
}

/** Where a page sits: its parents as links, separated by the stylesheet (nothing trails the last one). */
export function Breadcrumbs(props: { trail: { href: string; label: string }[] }) {
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      {props.trail.map((step) => (
        <a href={step.href}>{step.label}</a>
      ))}
    </nav>
  );
}

/**
 * A message box: errors are announced by screen readers. `transient`: it
 * holds only while scans run, and the live progress removes it once they end.
 */
export function Notice(props: { kind: 'error' | 'ok' | 'info'; transient?: boolean; children: ComponentChildren }) {
  return (
    <div class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'} data-live-transient={props.transient ? '' : undefined}>
      {props.children}
    </div>
  );
}

/** A link to copy: a read-only field (select it to copy without JavaScript) and a Copy button that copy.js shows. */
export function CopyField(props: { id: string; label: string; value: string }) {
  return (
    <div class="copy-field">
      <label for={props.id}>{props.label}</label>
      <div class="copy-row">
        <input id={props.id} type="text" readOnly value={props.value} />
        <button type="button" class="secondary" data-copy={props.id} hidden>
          Copy
        </button>
      </div>
    </div>
  );
}

export function CsrfField(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/** A one-button POST form (archive, revoke, remove…). */
export function ActionButton(props: { action: string; csrf: string; label: string; fields?: Record<string, string>; danger?: boolean; ariaLabel?: string }) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.danger ? 'danger' : 'secondary'} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </form>
  );
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export function When(props: { at: Date | string | null }) {
  if (props.at === null) return <span class="muted">—</span>;
  const date = new Date(props.at);
  return <time dateTime={date.toISOString()}>{`${dateFormat.format(date)} UTC`}</time>;
}
