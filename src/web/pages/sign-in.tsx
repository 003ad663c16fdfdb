/** The sign-in form: email and password; `next` is kept (and checked) across the post. */
import { CsrfField, Layout, Notice } from '../components/layout.js';
import { paths } from '../paths.js';

export function SignInPage(props: { csrf: string; next: string; email?: string; error?: string; signedOut?: boolean }) {
  return (
    <Layout title="Sign in">
      <section class="narrow">
        <h1>Sign in</h1>
        {props.signedOut ? <Notice kind="ok">You are signed out.</Notice> : null}
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        <form method="post" action={paths.signIn} class="stack">
          <CsrfField token={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required maxLength={254} value={props.email ?? ''} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={1024} />
          <button type="submit">Sign in</button>
        </form>
        <p class="muted">
          No account yet? Ask an owner or admin of your workspace for an invitation link. The first owner's link is printed when the server starts for the first
          time; an operator can print a new one with <code>profile-scan admin user link USER_ID</code>.
        </p>
      </section>
    </Layout>
  );
}
