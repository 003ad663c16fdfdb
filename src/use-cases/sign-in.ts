/**
 * Signing in and out of the web workspace, sessions and one-time links.
 *
 * - Sign-in: throttled per client address and per account (429 with a
 *   retry time), argon2id verification (an unknown email costs the same),
 *   then a brand-new session: the token is never one the client supplied,
 *   so a planted cookie cannot be promoted (session fixation).
 * - Sessions live in PostgreSQL; the cookie holds a random token whose
 *   SHA-256 is the key. They end at sign-out, after 7 days, after 12 idle
 *   hours, when the user is removed, and all at once when the password
 *   changes.
 * - One-time links (first owner, `admin user link`, invitations) are shown
 *   with GET and redeemed only by POST, so a link preview does not burn one.
 */
import type { Clock } from '../clock.js';
import { signInBuckets } from '../domain/web-limits.js';
import { isTokenShaped, newToken, normalizeEmail, passwordProblem, tokenHash, type Role } from '../domain/web-tokens.js';
import { apiError } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import {
  findAccountByEmail,
  findUser,
  findUsableLink,
  insertUser,
  listMemberships,
  markLinkUsed,
  setCredentials,
  type Membership,
} from '../store/member-repository.js';
import {
  deleteAccountSessions,
  deleteSession,
  findSessionUser,
  insertSession,
  touchSession,
  type SessionUser as SessionRow,
} from '../store/session-repository.js';
import { throttle } from './client-limits.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { retryingTransaction } from '../store/transaction.js';

/** The signed-in user in the session's current workspace, and every workspace their account belongs to (the switcher). */
export type SessionUser = SessionRow & { workspaces: Membership[] };

export interface AuthContext {
  db: Db;
  clock: Clock;
}

export const SESSION_LIFETIME_MS = 7 * 24 * 3600_000;
export const SESSION_IDLE_MS = 12 * 3600_000;
/** last_seen_at is written at most this often per session. */
const TOUCH_EVERY_MS = 5 * 60_000;

const invalid = (message: string) => apiError('validation_failed', message);

async function startSession(ctx: AuthContext, user: { id: string; workspace_id: string }): Promise<string> {
  const token = newToken();
  const now = ctx.clock.now();
  await insertSession(
    ctx.db,
    {
      tokenHash: tokenHash(token),
      userId: user.id,
      workspaceId: user.workspace_id,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    },
    now,
  );
  return token;
}

/**
 * Checks the credentials and opens a new session. `previousToken` (the
 * cookie the browser had) is ended, never reused.
 */
export async function signIn(
  ctx: AuthContext,
  input: { email: string; password: string; clientAddress: string; previousToken?: string | null },
): Promise<{ token: string; user: SessionUser }> {
  const email = input.email.trim().toLowerCase();
  await throttle(ctx.db, ctx.clock.now(), signInBuckets(input.clientAddress, email), 'Too many sign-in attempts.');
  const account = email !== '' && email.length <= 254 ? await findAccountByEmail(ctx.db, email) : undefined;
  const ok = await verifyPassword(account?.password_hash ?? null, input.password.slice(0, 1024));
  // An account removed from every workspace has nothing to open: the same answer as a wrong password.
  const first = account && ok ? (await listMemberships(ctx.db, account.id))[0] : undefined;
  if (!first) throw apiError('unauthorized', 'That email and password do not match an account.');
  if (input.previousToken && isTokenShaped(input.previousToken)) await deleteSession(ctx.db, tokenHash(input.previousToken));
  const token = await startSession(ctx, { id: first.userId, workspace_id: first.workspaceId });
  const session = await resolveSession(ctx, token);
  return { token, user: session! };
}

/** The signed-in user of a session cookie, or null. */
export async function resolveSession(ctx: AuthContext, token: string | null | undefined): Promise<SessionUser | null> {
  if (!isTokenShaped(token)) return null;
  const now = ctx.clock.now();
  const hash = tokenHash(token);
  const user = await findSessionUser(ctx.db, hash, now, new Date(now.getTime() - SESSION_IDLE_MS));
  if (!user) return null;
  if (now.getTime() - user.lastSeenAt.getTime() > TOUCH_EVERY_MS) await touchSession(ctx.db, hash, now);
  return { ...user, workspaces: await listMemberships(ctx.db, user.accountId) };
}

export async function signOut(ctx: AuthContext, token: string | null | undefined): Promise<void> {
  if (isTokenShaped(token)) await deleteSession(ctx.db, tokenHash(token));
}

/**
 * Changes the signed-in user's password after checking the current one;
 * ends every session of the user and returns a new one for this browser.
 */
export async function changePassword(
  ctx: AuthContext,
  user: { userId: string },
  input: { current: string; next: string; clientAddress: string },
): Promise<string> {
  const row = await findUser(ctx.db, { anyWorkspace: true, userId: user.userId });
  if (!row) throw apiError('unauthorized', 'Sign in again.');
  await throttle(ctx.db, ctx.clock.now(), signInBuckets(input.clientAddress, row.email ?? row.id), 'Too many password attempts.');
  if (!(await verifyPassword(row.password_hash, input.current.slice(0, 1024)))) throw invalid('The current password is not right.');
  const problem = passwordProblem(input.next);
  if (problem) throw invalid(problem);
  const passwordHash = await hashPassword(input.next);
  await retryingTransaction(ctx.db, async (trx) => {
    await setCredentials(trx, row.id, { passwordHash }, ctx.clock.now());
    await deleteAccountSessions(trx, row.account_id);
  });
  return startSession(ctx, row);
}

export interface LinkDescription {
  purpose: 'sign_in' | 'invitation';
  workspaceName: string;
  role: Role;
  /** The form must ask for a name and an email (an invitation, or a user who has none yet). */
  asksForProfile: boolean;
  name: string | null;
  email: string | null;
}

/** What a one-time link will do, or null when it cannot be used (unknown, used, revoked, expired). */
export async function describeLink(ctx: AuthContext, token: string): Promise<LinkDescription | null> {
  if (!isTokenShaped(token)) return null;
  const link = await findUsableLink(ctx.db, tokenHash(token), ctx.clock.now());
  if (!link) return null;
  if (link.purpose === 'invitation') {
    return { purpose: 'invitation', workspaceName: link.workspace_name, role: link.role!, asksForProfile: true, name: null, email: null };
  }
  const user = await findUser(ctx.db, { anyWorkspace: true, userId: link.user_id! });
  if (!user) return null;
  return {
    purpose: 'sign_in',
    workspaceName: link.workspace_name,
    role: user.role,
    asksForProfile: user.email === null,
    name: user.name,
    email: user.email,
  };
}

/**
 * Redeems a one-time link: sets the password (and name and email when the
 * link asks for them), marks the link used and opens a session, all or
 * nothing. Returns the new session's token.
 */
export async function redeemLink(
  ctx: AuthContext,
  token: string,
  input: { name?: string; email?: string; password: string; previousToken?: string | null; clientAddress?: string },
): Promise<string> {
  const gone = () => apiError('not_found', 'This link was already used, has expired or was revoked. Ask an owner or admin for a new one.');
  if (!isTokenShaped(token)) throw gone();
  const now = ctx.clock.now();
  const joined = await joinWithExistingAccount(ctx, token, input, now, gone);
  if (joined) return finishRedeem(ctx, joined, input.previousToken);
  const problem = passwordProblem(input.password);
  if (problem) throw invalid(problem);
  const passwordHash = await hashPassword(input.password);
  const user = await redeemInTransaction(ctx, token, input, passwordHash, now, gone).catch((error: unknown) => {
    // Two redemptions racing for one email: the unique index decides.
    if ((error as { code?: string }).code === '23505') throw invalid('That email already belongs to an account; sign in with it, or use another email.');
    throw error;
  });
  return finishRedeem(ctx, user, input.previousToken);
}

async function finishRedeem(ctx: AuthContext, user: { id: string; workspace_id: string }, previousToken: string | null | undefined): Promise<string> {
  if (previousToken && isTokenShaped(previousToken)) await deleteSession(ctx.db, tokenHash(previousToken));
  return startSession(ctx, user);
}

/**
 * An invitation redeemed with the email of an existing account adds the
 * workspace to that account: its password proves the account is theirs (it
 * is checked, never changed). Null when the link is not an invitation or the
 * email names no account (a new account is made).
 */
async function joinWithExistingAccount(
  ctx: AuthContext,
  token: string,
  input: { name?: string; email?: string; password: string; clientAddress?: string },
  now: Date,
  gone: () => Error,
): Promise<{ id: string; workspace_id: string } | null> {
  const link = await findUsableLink(ctx.db, tokenHash(token), now);
  if (!link) throw gone();
  const email = normalizeEmail(input.email ?? '');
  if (link.purpose !== 'invitation' || !email) return null;
  const account = await findAccountByEmail(ctx.db, email);
  if (!account) return null;
  await throttle(ctx.db, now, signInBuckets(input.clientAddress ?? 'unknown', email), 'Too many password attempts.');
  if (!(await verifyPassword(account.password_hash, input.password.slice(0, 1024)))) {
    throw invalid('That email already belongs to an account: enter its password to add this workspace to it.');
  }
  return acceptInvitation(ctx, token, { accountId: account.id, name: input.name ?? '' }, gone);
}

/**
 * Adds the invitation's workspace to an account, as the invitation's role:
 * the signed-in account accepting it, or one whose password was just checked.
 */
export async function acceptInvitation(
  ctx: AuthContext,
  token: string,
  account: { accountId: string; name: string },
  gone: () => Error = () => apiError('not_found', 'This link was already used, has expired or was revoked. Ask an owner or admin for a new one.'),
): Promise<{ id: string; workspace_id: string }> {
  const name = account.name.trim();
  if (name.length < 1 || name.length > 200) throw invalid('Enter your name (1 to 200 characters).');
  const now = ctx.clock.now();
  const already = (workspaceName: string) => invalid(`This account already belongs to ${workspaceName}: sign in and switch to it.`);
  let workspaceName = 'this workspace';
  return retryingTransaction(ctx.db, async (trx) => {
    const link = await findUsableLink(trx, tokenHash(token), now, { forUpdate: true });
    if (!link || link.purpose !== 'invitation') throw gone();
    workspaceName = link.workspace_name;
    if ((await listMemberships(trx, account.accountId)).some((m) => m.workspaceId === link.workspace_id)) throw already(workspaceName);
    if (!(await markLinkUsed(trx, link.id, now))) throw gone();
    return insertUser(trx, { workspaceId: link.workspace_id, accountId: account.accountId, name, role: link.role! }, now);
  }).catch((error: unknown) => {
    // Two invitations to one workspace accepted at once by one account: the unique membership index decides.
    if ((error as { code?: string }).code === '23505') throw already(workspaceName);
    throw error;
  });
}

async function redeemInTransaction(
  ctx: AuthContext,
  token: string,
  input: { name?: string; email?: string },
  passwordHash: string,
  now: Date,
  gone: () => Error,
) {
  return retryingTransaction(ctx.db, async (trx) => {
    const link = await findUsableLink(trx, tokenHash(token), now, { forUpdate: true });
    if (!link) throw gone();
    const existing = link.purpose === 'sign_in' ? await findUser(trx, { anyWorkspace: true, userId: link.user_id! }) : undefined;
    if (link.purpose === 'sign_in' && !existing) throw gone();
    const asksForProfile = link.purpose === 'invitation' || existing!.email === null;
    let name: string | undefined;
    let email: string | undefined;
    if (asksForProfile) {
      name = (input.name ?? '').trim();
      if (name.length < 1 || name.length > 200) throw invalid('Enter your name (1 to 200 characters).');
      const normalized = normalizeEmail(input.email ?? '');
      if (!normalized) throw invalid('Enter a valid email address.');
      email = normalized;
      const taken = await findAccountByEmail(trx, email);
      if (taken && taken.id !== existing?.account_id) throw invalid('That email already belongs to an account; sign in with it, or use another email.');
    }
    if (!(await markLinkUsed(trx, link.id, now))) throw gone();
    if (link.purpose === 'invitation') {
      return insertUser(trx, { workspaceId: link.workspace_id, accountId: null, name: name!, email: email!, role: link.role!, passwordHash }, now);
    }
    const updated = await setCredentials(trx, existing!.id, { name, email, passwordHash }, now);
    // A reset: every other session of the account ends.
    await deleteAccountSessions(trx, existing!.account_id);
    return updated!;
  });
}
