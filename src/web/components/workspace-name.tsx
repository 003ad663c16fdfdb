/** The settings' rename form: owners only (domain/permissions.ts, rename_workspace); nothing for other roles. */
import { can } from '../../domain/permissions.js';
import type { Role } from '../../domain/web-tokens.js';
import { WORKSPACE_NAME_MAX } from '../../use-cases/workspaces.js';
import { paths } from '../paths.js';
import { CsrfField } from './layout.js';

export function WorkspaceNameSection(props: { csrf: string; role: Role; name: string }) {
  if (!can(props.role, 'rename_workspace')) return null;
  return (
    <section class="card narrow" aria-labelledby="rename-heading">
      <h2 id="rename-heading">Workspace name</h2>
      <form method="post" action={paths.settingsWorkspaceName} class="stack">
        <CsrfField token={props.csrf} />
        <label for="rename-workspace">Name</label>
        <input id="rename-workspace" name="name" required maxLength={WORKSPACE_NAME_MAX} value={props.name} aria-describedby="rename-hint" />
        <p id="rename-hint" class="hint">
          Every member sees it in the header and the workspace switcher. API clients keep the slug.
        </p>
        <button type="submit">Rename workspace</button>
      </form>
    </section>
  );
}
