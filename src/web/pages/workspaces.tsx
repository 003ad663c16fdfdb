/**
 * The workspaces of the signed-in account: each with its role there, a way
 * to switch to it, and a new workspace (when the operator allows it; the
 * page says who creates them otherwise).
 */
import { ActionButton, CsrfField, Layout, Notice, type Viewer } from '../components/layout.js';
import { paths } from '../paths.js';
import type { Membership } from '../../use-cases/workspaces.js';
import { WORKSPACE_NAME_MAX, type WorkspaceCreation } from '../../use-cases/workspaces.js';

export interface WorkspacesProps {
  csrf: string;
  viewer: Viewer;
  currentId: string;
  workspaces: Membership[];
  creation: WorkspaceCreation;
  notice?: string;
  error?: string;
  name?: string;
}

const ROLE_TEXT: Record<Membership['role'], string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  viewer: 'Viewer (reads only)',
};

export function WorkspacesPage(props: WorkspacesProps) {
  return (
    <Layout title="Workspaces" viewer={props.viewer} csrf={props.csrf}>
      <h1>Workspaces</h1>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <p>Each workspace has its own reports, people, members and API keys. You see one at a time: switch to open another.</p>
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Your workspaces</caption>
          <thead>
            <tr>
              <th scope="col">Workspace</th>
              <th scope="col">Your role</th>
              <th scope="col">
                <span class="visually-hidden">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.workspaces.map((w) => (
              <tr>
                <td>{w.workspaceName}</td>
                <td>{ROLE_TEXT[w.role]}</td>
                <td>
                  {w.workspaceId === props.currentId ? (
                    <span class="muted">Current</span>
                  ) : (
                    <ActionButton
                      action={paths.workspaceSwitch}
                      csrf={props.csrf}
                      label="Switch"
                      fields={{ workspace: w.workspaceId }}
                      ariaLabel={`Switch to ${w.workspaceName}`}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <section class="card narrow" aria-labelledby="new-workspace-heading">
        <h2 id="new-workspace-heading">New workspace</h2>
        {props.creation === 'signed-in' ? (
          <form method="post" action={paths.workspaces} class="stack">
            <CsrfField token={props.csrf} />
            <label for="workspace-name">Name</label>
            <input id="workspace-name" name="name" required maxLength={WORKSPACE_NAME_MAX} value={props.name ?? ''} aria-describedby="workspace-name-hint" />
            <p id="workspace-name-hint" class="hint">
              For example a client company. You become its owner and switch to it; invite people from its Settings.
            </p>
            <button type="submit">Create workspace</button>
          </form>
        ) : (
          <Notice kind="info">
            On this installation, new workspaces are created by the operator (<code>profile-scan admin workspace create</code>). Ask them for one; once someone
            invites you, it appears here.
          </Notice>
        )}
      </section>
    </Layout>
  );
}
