/**
 * The workspace's privacy page (owners): the audit log of what was done with
 * personal data, and deleting the workspace with its name typed as
 * confirmation (docs/privacy.md).
 */
import { CsrfField, Layout, Notice, type Viewer } from '../components/layout.js';
import { paths } from '../paths.js';
import type { AuditView } from '../../use-cases/audit-log.js';

export interface PrivacyProps {
  viewer: Viewer;
  csrf: string;
  entries: AuditView[];
  error?: string;
}

const ACTIONS: Record<string, string> = {
  erase_person: 'Person erased',
  export_person: 'Person exported',
  delete_workspace: 'Workspace deleted',
  issue_key: 'API key issued',
  revoke_key: 'API key revoked',
  role_to_owner: 'Role changed to owner',
  role_to_admin: 'Role changed to admin',
  role_to_member: 'Role changed to member',
  role_to_viewer: 'Role changed to viewer',
  remove_member: 'Member removed',
  share_report: 'Public link turned on',
  unshare_report: 'Public link turned off',
  create_person_links: 'Private links made',
  revoke_person_links: 'Private links revoked',
};

export function PrivacyPage(props: PrivacyProps) {
  return (
    <Layout title="Privacy" viewer={props.viewer} csrf={props.csrf} current="settings">
      <h1>Privacy</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <section class="card" aria-labelledby="audit-heading">
        <h2 id="audit-heading">Audit log</h2>
        <p class="hint">Erasures, exports, deletions, API keys, roles and sharing: who, what kind of object, when. It never holds the values themselves.</p>
        {props.entries.length === 0 ? (
          <p class="muted">Nothing recorded yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Object</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {props.entries.map((e) => (
                  <tr>
                    <td>{e.at}</td>
                    <td>
                      {ACTIONS[e.action] ?? e.action}
                      {e.count !== null && e.count > 1 ? ` (${e.count})` : ''}
                    </td>
                    <td>
                      {e.object_kind}
                      {e.object_id ? <code> {e.object_id}</code> : null}
                    </td>
                    <td>{e.actor_kind === 'user' ? <code>{e.actor_id}</code> : e.actor_kind}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section class="card" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete this workspace</h2>
        <p class="hint">
          Everything of the workspace goes: reports, people, findings, evidence images, members, keys. It cannot be undone. Type the workspace's name to
          confirm.
        </p>
        <form method="post" action={paths.settingsWorkspaceDelete} class="stack">
          <CsrfField token={props.csrf} />
          <label for="confirm-name">Workspace name</label>
          <input id="confirm-name" name="name" autoComplete="off" required />
          <button type="submit" class="danger">
            Delete the workspace and everything of it
          </button>
        </form>
      </section>
    </Layout>
  );
}
