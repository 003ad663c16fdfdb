/**
 * Workspace settings. Owners and admins: API keys (create with scopes and
 * test/live kind, the secret shown once, last use, revoke), members (invite
 * with a one-time link, change role, remove), API access and write limits.
 * Members see the workspace, its limits and its members, read-only. Everyone
 * sees the scan allowance, read-only; owners and admins also see the
 * provider records billed (components/scan-allowance.tsx).
 */
import { SCOPES } from '../../domain/keys.js';
import { DEFAULT_LIMITS, WORKSPACE_LIMIT_RANGE, type WorkspaceLimits, type WorkspaceLimitSettings } from '../../domain/rate-limits.js';
import type { AllowanceStatus } from '../../domain/scan-allowance.js';
import { canAssign, ROLES, type Role } from '../../domain/web-tokens.js';
import { can } from '../../domain/permissions.js';
import type { KeyListRow } from '../../use-cases/manage-keys.js';
import type { ProviderUsage } from '../../use-cases/provider-usage.js';
import type { Invitation, Member } from '../../use-cases/workspace-members.js';
import { ActionButton, CsrfField, Layout, Notice, When, type Viewer } from '../components/layout.js';
import { paths } from '../paths.js';
import { BilledRecordsSection, ScanAllowanceSection } from '../components/scan-allowance.js';
import { WorkspaceNameSection } from '../components/workspace-name.js';

export interface SettingsProps {
  csrf: string;
  viewer: Viewer;
  viewerId: string;
  workspace: {
    name: string;
    slug: string;
    api_access: boolean;
    writes_per_minute_per_key: number | null;
    writes_per_minute_per_workspace: number | null;
    submitted_profiles_per_minute_per_workspace: number | null;
  };
  limits: WorkspaceLimits;
  /** This month's scan allowance (read-only for every role: the operator sets it). */
  allowance: AllowanceStatus;
  /** Provider records billed (owners and admins; null for members). */
  billed: ProviderUsage[] | null;
  members: Member[];
  keys: KeyListRow[] | null;
  invitations: Invitation[] | null;
  newKey?: { id: string; secret: string; mode: string; scopes: string[] };
  newInvitationUrl?: string;
  notice?: string;
  error?: string;
}

const SCOPE_HELP: Record<string, string> = {
  '*': 'everything',
  'workspace:read': 'read the workspace and /context',
  'reports:read': 'read reports and scans',
  'profiles:read': 'read rosters',
  'reports:create': 'create reports',
  'profiles:add': 'add people',
  'analysis:read': 'read analysis and evidence',
  'imports:read': 'read import receipts',
};

const LIMIT_LABELS: Array<[keyof WorkspaceLimits, string]> = [
  ['reads_per_minute_per_key', 'Reads per key per minute'],
  ['reads_per_minute_per_workspace', 'Reads per workspace per minute'],
  ['writes_per_minute_per_key', 'Writes per key per minute'],
  ['writes_per_minute_per_workspace', 'Writes per workspace per minute'],
  ['submitted_profiles_per_minute_per_workspace', 'Submitted people per workspace per minute'],
  ['profiles_per_write_max', 'People per write'],
  ['page_size_max', 'List page size'],
];

function roleOptions(viewerRole: Role, current: Role): Role[] {
  return ROLES.filter((role) => canAssign(viewerRole, current, role));
}

export function SettingsPage(props: SettingsProps) {
  const manage = can(props.viewer.role, 'manage_workspace');
  const w = props.workspace;
  return (
    <Layout title="Settings" viewer={props.viewer} csrf={props.csrf} current="settings">
      <h1>Settings</h1>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {!manage ? <Notice kind="info">Only owners and admins can manage API keys, members and limits. You see them read-only.</Notice> : null}

      {manage && props.keys ? (
        <section class="card" aria-labelledby="keys-heading">
          <h2 id="keys-heading">API keys</h2>
          {props.newKey ? (
            <div class="notice ok" role="status">
              <p>
                <strong>New {props.newKey.mode} key created.</strong> Copy its secret now: it is shown only this once.
              </p>
              <label for="new-secret">Secret</label>
              <input id="new-secret" class="secret" readOnly value={props.newKey.secret} />
              <p class="hint">
                Use it as <code>Authorization: Bearer …</code> on <code>/api/v1</code>.
              </p>
            </div>
          ) : null}
          {props.keys.length === 0 ? (
            <p class="muted">No keys yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">API keys of the workspace</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col" class="hide-narrow">
                      Scopes
                    </th>
                    <th scope="col" class="hide-narrow">
                      Owner
                    </th>
                    <th scope="col" class="hide-narrow">
                      Last used
                    </th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {props.keys.map((k) => (
                    <tr id={`key-${k.id}`}>
                      <td>
                        <code class="key-prefix">{k.secret_prefix}…</code>
                        <span class="sub">
                          {k.mode} · created <When at={k.created_at} />
                        </span>
                        <span class="sub narrow-only">
                          {k.user_name} · {k.scopes.join(', ')}
                        </span>
                      </td>
                      <td class="hide-narrow">{k.scopes.join(', ')}</td>
                      <td class="hide-narrow">{k.user_name}</td>
                      <td class="hide-narrow">{k.last_used_at ? <When at={k.last_used_at} /> : <span class="muted">never</span>}</td>
                      <td>
                        {k.revoked_at ? (
                          <span class="badge archived">Revoked</span>
                        ) : (
                          <ActionButton
                            action={paths.settingsKeyRevoke(k.id)}
                            csrf={props.csrf}
                            label="Revoke"
                            danger
                            ariaLabel={`Revoke key ${k.secret_prefix}`}
                          />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h3>Create a key</h3>
          <form method="post" action={paths.settingsKeys} class="stack">
            <CsrfField token={props.csrf} />
            <fieldset>
              <legend>Kind</legend>
              <label class="check">
                <input type="radio" name="mode" value="test" checked /> Test (scans with the built-in simulator)
              </label>
              <label class="check">
                <input type="radio" name="mode" value="live" /> Live (scans with the configured collector)
              </label>
            </fieldset>
            <fieldset>
              <legend>Scopes</legend>
              {SCOPES.map((scope) => (
                <label class="check">
                  <input type="checkbox" name="scopes" value={scope} checked={scope === '*'} /> <code>{scope}</code> {SCOPE_HELP[scope]}
                </label>
              ))}
            </fieldset>
            <button type="submit">Create key</button>
          </form>
        </section>
      ) : null}

      <section class="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Members of the workspace</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                {manage ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {props.members.map((m) => {
                const options = roleOptions(props.viewer.role, m.role);
                return (
                  <tr>
                    <td>
                      {m.name}
                      <span class="sub">{m.email ?? (m.signed_up ? '' : 'has not signed in yet')}</span>
                    </td>
                    <td>{m.role}</td>
                    {manage ? (
                      <td>
                        {options.length > 0 ? (
                          <form method="post" action={paths.settingsMemberRole(m.id)} class="inline">
                            <CsrfField token={props.csrf} />
                            <label for={`role-${m.id}`} class="visually-hidden">{`Role of ${m.name}`}</label>
                            <select id={`role-${m.id}`} name="role">
                              {options.map((r) => (
                                <option value={r} selected={r === m.role}>
                                  {r}
                                </option>
                              ))}
                            </select>{' '}
                            <button type="submit" class="secondary">
                              Change role
                            </button>
                          </form>
                        ) : null}{' '}
                        {m.id !== props.viewerId && options.length > 0 ? (
                          <ActionButton action={paths.settingsMemberRemove(m.id)} csrf={props.csrf} label="Remove" danger ariaLabel={`Remove ${m.name}`} />
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {manage && props.invitations ? (
          <>
            <h3>Invite someone</h3>
            {props.newInvitationUrl ? (
              <div class="notice ok" role="status">
                <p>
                  <strong>Invitation created.</strong> Send this one-time link to the person; it is shown only this once and works for 7 days.
                </p>
                <label for="new-invitation">Invitation link</label>
                <input id="new-invitation" class="secret" readOnly value={props.newInvitationUrl} />
              </div>
            ) : null}
            <form method="post" action={paths.settingsInvitations} class="stack">
              <CsrfField token={props.csrf} />
              <label for="invite-label">Who is it for? (a note for you)</label>
              <input id="invite-label" name="label" maxLength={200} />
              <label for="invite-role">Role</label>
              <select id="invite-role" name="role">
                <option value="member">member</option>
                <option value="viewer">viewer</option>
                <option value="admin">admin</option>
                {props.viewer.role === 'owner' ? <option value="owner">owner</option> : null}
              </select>
              <button type="submit">Create invitation link</button>
            </form>
            {props.invitations.length > 0 ? (
              <>
                <h3>Pending invitations</h3>
                <ul>
                  {props.invitations.map((i) => (
                    <li>
                      {i.label ?? 'Invitation'} · {i.role} · expires <When at={i.expires_at} />{' '}
                      <ActionButton
                        action={paths.settingsInvitationRevoke(i.id)}
                        csrf={props.csrf}
                        label="Revoke"
                        danger
                        ariaLabel={`Revoke invitation ${i.label ?? ''}`}
                      />
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </>
        ) : null}
      </section>

      <WorkspaceNameSection csrf={props.csrf} role={props.viewer.role} name={w.name} />

      <section class="card" aria-labelledby="workspace-heading">
        <h2 id="workspace-heading">Workspace and limits</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{w.name}</dd>
          <dt>Slug</dt>
          <dd>{w.slug}</dd>
          <dt>API access</dt>
          <dd>{w.api_access ? 'Enabled' : 'Disabled: every API request is refused with 403'}</dd>
          {LIMIT_LABELS.map(([key, text]) => (
            <>
              <dt>{text}</dt>
              <dd>{props.limits[key]}</dd>
            </>
          ))}
        </dl>
        {manage ? (
          <form method="post" action={paths.settingsWorkspace} class="stack">
            <CsrfField token={props.csrf} />
            <label class="check">
              <input type="checkbox" name="api_access" value="1" checked={w.api_access} /> API access enabled
            </label>
            <LimitField id="wpk" name="writes_per_minute_per_key" label="Writes per key per minute" value={w.writes_per_minute_per_key} />
            <LimitField id="wpw" name="writes_per_minute_per_workspace" label="Writes per workspace per minute" value={w.writes_per_minute_per_workspace} />
            <LimitField
              id="spw"
              name="submitted_profiles_per_minute_per_workspace"
              label="Submitted people per workspace per minute"
              value={w.submitted_profiles_per_minute_per_workspace}
            />
            <button type="submit">Save workspace settings</button>
          </form>
        ) : null}
      </section>

      <ScanAllowanceSection allowance={props.allowance} />
      {props.billed ? <BilledRecordsSection usage={props.billed} /> : null}
      {props.viewer.role === 'owner' ? (
        <p>
          <a href={paths.settingsPrivacy}>Privacy: audit log and deleting the workspace</a>
        </p>
      ) : null}
    </Layout>
  );
}

/** One of the workspace's own write limits: a whole number in the shared range, or empty for the default. */
function LimitField(props: { id: string; name: keyof WorkspaceLimitSettings; label: string; value: number | null }) {
  return (
    <>
      <label for={props.id}>
        {props.label} (empty: default {DEFAULT_LIMITS[props.name]})
      </label>
      <input id={props.id} name={props.name} type="number" min={WORKSPACE_LIMIT_RANGE.min} max={WORKSPACE_LIMIT_RANGE.max} value={props.value ?? ''} />
    </>
  );
}
