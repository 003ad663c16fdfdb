/** The signed-in user's account: who they are, and a password change (which ends every other session). */
import { CsrfField, Layout, Notice, type Viewer } from '../components/layout.js';
import { paths } from '../paths.js';
import { PASSWORD_MIN } from '../../domain/web-tokens.js';

export function AccountPage(props: { csrf: string; viewer: Viewer; email: string | null; error?: string; changed?: boolean }) {
  return (
    <Layout title="Your account" viewer={props.viewer} csrf={props.csrf} current="account">
      <h1>Your account</h1>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{props.viewer.name}</dd>
        <dt>Email</dt>
        <dd>{props.email ?? '—'}</dd>
        <dt>Workspace</dt>
        <dd>{props.viewer.workspaceName}</dd>
        <dt>Role</dt>
        <dd>{props.viewer.role}</dd>
      </dl>
      <section class="narrow">
        <h2>Change password</h2>
        {props.changed ? <Notice kind="ok">Your password was changed. Every other session was signed out.</Notice> : null}
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        <form method="post" action={paths.accountPassword} class="stack">
          <CsrfField token={props.csrf} />
          <input type="hidden" name="username" autoComplete="username" value={props.email ?? ''} />
          <label for="current">Current password</label>
          <input id="current" name="current" type="password" autoComplete="current-password" required maxLength={1024} />
          <label for="next-password">New password</label>
          <input id="next-password" name="next" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} maxLength={200} />
          <button type="submit">Change password</button>
        </form>
      </section>
    </Layout>
  );
}
