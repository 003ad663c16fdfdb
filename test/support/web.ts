/**
 * A small browser stand-in for HTTP tests of the web workspace: a cookie
 * jar, GETs and form POSTs over real HTTP (redirects not followed, so tests
 * see them), and the CSRF token read from the page like a browser submits it.
 * Users are made through the same use-cases as the CLI and the invitation
 * flow.
 */
import type { Role } from '../../src/domain/web-tokens.js';
import { redeemLink } from '../../src/use-cases/sign-in.js';
import { createUserWithLink } from '../../src/use-cases/workspace-members.js';
import type { TestApp } from './app.js';

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Page> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: init.body, redirect: 'manual' });
    this.remember(res.headers);
    // Decoded keeping a byte order mark (Response.text() drops it): the CSV export's BOM is part of what is tested.
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.request('GET', path, { headers });
  }

  /** Posts a urlencoded form, as a browser on this site does (Origin included unless overridden). */
  post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
    return this.request('POST', path, {
      body: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl, ...headers },
    });
  }

  postMultipart(path: string, form: FormData, headers: Record<string, string> = {}): Promise<Page> {
    return this.request('POST', path, { body: form, headers: { origin: this.baseUrl, ...headers } });
  }

  /** GETs `pagePath` and posts `fields` to `action` with the page's CSRF token. */
  async submit(pagePath: string, action: string, fields: Record<string, string | string[]> = {}): Promise<Page> {
    const page = await this.get(pagePath);
    if (page.status !== 200) throw new Error(`GET ${pagePath}: ${page.status}`);
    return this.post(action, { _csrf: csrfOf(page.text), ...fields });
  }

  /**
   * A destructive action as a person does it: the form (from `pagePath`)
   * answers with the confirmation page, whose form is then sent.
   */
  async confirm(pagePath: string, action: string, fields: Record<string, string> = {}): Promise<Page> {
    const asked = await this.submit(pagePath, action, fields);
    if (asked.status !== 200 || !asked.text.includes('name="confirmed" value="1"')) throw new Error(`${action}: no confirmation page (${asked.status})`);
    const form = /<form method="post" action="([^"]+)" class="toolbar">([\s\S]*?)<\/form>/.exec(asked.text)!;
    const hidden = Object.fromEntries(
      [...form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)].map((m) => [m[1], m[2].replaceAll('&amp;', '&')]),
    );
    return this.post(form[1].replaceAll('&amp;', '&'), hidden);
  }

  async signIn(email: string, password: string): Promise<Page> {
    const page = await this.get('/sign-in');
    return this.post('/sign-in', { _csrf: csrfOf(page.text), email, password, next: '/reports' });
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1];
}

let counter = 0;

export interface WebUser {
  userId: string;
  email: string;
  password: string;
  client: WebClient;
}

/** A user of `workspaceId` with a password, signed in on a fresh client (through the one-time link story). */
export async function webUser(app: TestApp, workspaceId: string, role: Role = 'owner', name = `User ${++counter}`): Promise<WebUser> {
  const email = `user${++counter}.${Date.now()}@example.test`;
  const password = 'correct horse battery';
  const ctx = { db: app.runtime.db, clock: app.clock };
  const { user, token } = await createUserWithLink(ctx, { workspaceId, role, name, email });
  const session = await redeemLink(ctx, token, { password });
  const client = new WebClient(app.baseUrl);
  client.cookies.set('ps_session', session);
  return { userId: user.id, email, password, client };
}

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Creates a report from a CSV through the new-report form's preview and commit, as a person would; returns the report's id. */
export async function reportFromCsv(user: WebUser, csv: string, fields: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  form.set('_csrf', csrfOf((await user.client.get('/reports/new')).text));
  form.set('step', 'preview');
  const defaults = { name: 'Team audit', company_name: 'Acme', company_domain: 'acme.com', company_page: 'https://pronet.example/company/acme', mode: 'test' };
  for (const [name, value] of Object.entries({ ...defaults, ...fields })) form.set(name, value);
  form.set('people', '');
  form.set('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
  const preview = await user.client.postMultipart('/reports/new', form);
  if (preview.status !== 200) throw new Error(`preview answered ${preview.status}: ${preview.text.slice(0, 500)}`);
  const commit = new FormData();
  commit.set('_csrf', csrfOf(preview.text));
  commit.set('step', 'commit');
  commit.set('payload', unescapeAttribute(/name="payload" value="([^"]+)"/.exec(preview.text)![1]));
  const key = /name="idempotency_key" value="([^"]+)"/.exec(preview.text)?.[1];
  if (key) commit.set('idempotency_key', key);
  const done = await user.client.postMultipart('/reports/new', commit);
  if (done.status !== 303) throw new Error(`commit answered ${done.status}: ${done.text.slice(0, 500)}`);
  return /^\/reports\/([0-9a-f-]+)/.exec(done.location!)![1];
}
