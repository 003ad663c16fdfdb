/**
 * A one-time link: accept an invitation, or (first owner, reset) set a
 * password. Name and email are asked when the account has none yet.
 */
import { CsrfField, Layout, Notice } from '../components/layout.js';
import type { LinkDescription } from '../../use-cases/sign-in.js';
import { PASSWORD_MIN } from '../../domain/web-tokens.js';

export function LinkPage(props: {
  csrf: string;
  action: string;
  link: LinkDescription;
  error?: string;
  name?: string;
  email?: string;
  /** The signed-in account's email (or name): an invitation can be accepted with it, without a password. */
  signedInAs?: string | null;
}) {
  const { link } = props;
  const heading = link.purpose === 'invitation' ? `Join ${link.workspaceName}` : link.asksForProfile ? `Set up your account` : 'Choose a new password';
  return (
    <Layout title={heading} noindex>
      <section class="narrow">
        <h1>{heading}</h1>
        <p>
          {link.purpose === 'invitation'
            ? `You were invited to the workspace “${link.workspaceName}” as ${link.role === 'admin' ? 'an admin' : `a ${link.role}`}.`
            : `Workspace “${link.workspaceName}”${link.email ? `, account ${link.email}` : ''}.`}{' '}
          This link works once.
        </p>
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        {link.purpose === 'invitation' && props.signedInAs ? (
          <>
            <form method="post" action={props.action} class="stack">
              <CsrfField token={props.csrf} />
              <input type="hidden" name="join" value="1" />
              <p>You are signed in as {props.signedInAs}: add this workspace to your account.</p>
              <button type="submit">Join with this account</button>
            </form>
            <h2>Or join with another email</h2>
          </>
        ) : null}
        <form method="post" action={props.action} class="stack">
          <CsrfField token={props.csrf} />
          {link.asksForProfile ? (
            <>
              <label for="name">Your name</label>
              <input id="name" name="name" autoComplete="name" required maxLength={200} value={props.name ?? link.name ?? ''} />
              <label for="email">Email (you sign in with it)</label>
              <input id="email" name="email" type="email" autoComplete="username" required maxLength={254} value={props.email ?? ''} />
            </>
          ) : (
            <input type="hidden" name="username" autoComplete="username" value={link.email ?? ''} />
          )}
          <label for="password">{link.purpose === 'invitation' ? 'Password' : 'New password'}</label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN}
            maxLength={200}
            aria-describedby="password-hint"
          />
          <p id="password-hint" class="hint">
            {link.purpose === 'invitation'
              ? `A new password of at least ${PASSWORD_MIN} characters; if this email already has an account, its password: the workspace is added to it.`
              : `At least ${PASSWORD_MIN} characters.`}
          </p>
          <button type="submit">{link.purpose === 'invitation' ? 'Join and sign in' : 'Save and sign in'}</button>
        </form>
      </section>
    </Layout>
  );
}
