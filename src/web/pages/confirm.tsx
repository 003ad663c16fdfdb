/**
 * The confirmation step of a destructive action (archive, remove a person,
 * revoke a key, remove a member), without JavaScript: the action's form posts
 * to its address; unless it carries `confirmed=1`, the handler answers with
 * this page, which says what will happen and posts the same fields again
 * with `confirmed=1`, or goes back.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Layout, CsrfField } from '../components/layout.js';
import { field, viewerOf } from '../forms.js';
import { sendPage } from '../render.js';

export interface Confirmation {
  /** The question, naming what it acts on, e.g. "Archive the report “Q3 audit”?". */
  title: string;
  /** What will happen, and whether it can be undone. */
  consequence: string;
  /** The confirming button, e.g. "Archive". */
  confirm: string;
  /** Where "Cancel" leads. */
  back: string;
}

function ConfirmPage(props: { request: FastifyRequest; confirmation: Confirmation; fields: Record<string, string> }) {
  const { confirmation: c, request } = props;
  return (
    <Layout title={c.title} viewer={viewerOf(request)} csrf={request.web.csrf()}>
      <h1>{c.title}</h1>
      <p>{c.consequence}</p>
      <form method="post" action={request.url} class="toolbar">
        <CsrfField token={request.web.csrf()} />
        {Object.entries(props.fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="confirmed" value="1" />
        <button type="submit" class="danger">
          {c.confirm}
        </button>
        <a class="button secondary" href={c.back}>
          Cancel
        </a>
      </form>
    </Layout>
  );
}

/**
 * False when the request confirmed the action; otherwise runs `precheck`
 * (the action's own refusals: not found, not allowed, which it throws as the
 * action would), sends the confirmation page (200) and returns true: the
 * handler then returns `reply`. So nobody is asked to confirm what they could
 * not do, and nothing of another workspace is shown. (A boolean, not the
 * reply: a Fastify reply is thenable, so an async function cannot return it.)
 */
export async function askFirst<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  confirmation: Omit<Confirmation, 'title'> & {
    precheck: () => Promise<T>;
    /** The question; from what the precheck found, to name the report, person, key or member it acts on. */
    title: string | ((checked: T) => string);
  },
): Promise<boolean> {
  if (field(request, 'confirmed') === '1') return false;
  const checked = await confirmation.precheck();
  const title = typeof confirmation.title === 'function' ? confirmation.title(checked) : confirmation.title;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const fields = Object.fromEntries(
    Object.keys(body)
      .filter((name) => name !== '_csrf' && name !== 'confirmed')
      .map((name) => [name, field(request, name)]),
  );
  reply.header('Cache-Control', 'no-store');
  sendPage(reply, <ConfirmPage request={request} confirmation={{ ...confirmation, title }} fields={fields} />);
  return true;
}
