/** An error as a page: the status, a sentence saying what happened and what to do, and a way on. */
import { Layout, Notice, type Viewer } from '../components/layout.js';
import { paths } from '../paths.js';

const TITLES: Record<number, string> = {
  400: 'Request not understood',
  401: 'Sign in again',
  403: 'Not allowed',
  404: 'Not found',
  410: 'This link no longer works',
  409: 'Not possible now',
  413: 'Too large',
  422: 'Check the form',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Unavailable',
};

/** `bare`: the page of a private link, seen by someone outside the workspace: no way into it (no sign-in, no navigation). */
export function ErrorPage(props: { status: number; message: string; viewer: Viewer | null; csrf?: string; signInNext?: string; bare?: boolean }) {
  const title = TITLES[props.status] ?? 'Error';
  return (
    <Layout title={title} viewer={props.bare ? null : props.viewer} csrf={props.csrf} bare={props.bare} noindex={props.bare}>
      <h1>{title}</h1>
      <Notice kind="error">{props.message}</Notice>
      {props.bare ? null : (
        <p>
          {props.status === 401 ? (
            <a href={`${paths.signIn}${props.signInNext ? `?next=${encodeURIComponent(props.signInNext)}` : ''}`}>Sign in</a>
          ) : props.viewer ? (
            <a href={paths.reports}>Back to the reports</a>
          ) : (
            <a href={paths.signIn}>Go to sign-in</a>
          )}
        </p>
      )}
    </Layout>
  );
}
