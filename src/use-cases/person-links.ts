/**
 * Private links (docs/web.md, "Private links"): a lead hands each person a
 * link that opens that person's page of one report, and nothing else,
 * without signing in. A link is an opaque token made and hashed like every
 * other token of the web workspace (domain/web-tokens.ts): only its SHA-256
 * is stored, so the link is shown once, when it is made. It expires after the
 * days the lead chose and can be revoked, one or all of a report's at once.
 *
 * Opening a link answers 404 for a token that names no link and 410, with a
 * sentence the person can act on, for a revoked or expired one, or one whose
 * report was archived or person removed. It records when it was last opened.
 * The page's evidence images are served through the same token, only the
 * person's own.
 */
import type { Clock } from '../clock.js';
import type { CursorCodec } from '../domain/cursor.js';
import { ApiError, apiError, notFound } from '../domain/errors.js';
import { isTokenShaped, newToken, tokenHash } from '../domain/web-tokens.js';
import type { MediaStore } from '../scanning/media/media-store.js';
import type { Db } from '../store/database.js';
import { recordAudit } from '../store/audit-repository.js';
import { retryingTransaction } from '../store/transaction.js';
import { findPersonLink, insertPersonLinks, listPersonLinks, recordOpened, revokePersonLinks, type OpenedLinkRow } from '../store/person-link-repository.js';
import { readPersonProgress, type PersonProgressView } from './progress.js';
import { openEvidence, type EvidenceVariant, type OpenedEvidence } from './read-evidence.js';
import { readReportPeople } from './report-people.js';
import { readPerson, type PersonView } from './report-view.js';
import { requireReport } from './require-report.js';

export const LINK_DAYS_DEFAULT = 30;
export const LINK_DAYS_MAX = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface LinkScope {
  db: Db;
  clock: Clock;
  workspaceId: string;
  userId: string;
}

export interface CreatedLink {
  profileId: string;
  name: string;
  /** The token, shown once: only its hash is stored. */
  token: string;
  expiresAt: Date;
}

/** Whole days from 1 to LINK_DAYS_MAX, as typed in the form; else 422. */
export function linkDays(raw: string): number {
  const text = raw.trim();
  if (text === '') return LINK_DAYS_DEFAULT;
  const days = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1 && days <= LINK_DAYS_MAX)) {
    throw apiError('validation_failed', `A link lasts from 1 to ${LINK_DAYS_MAX} days: enter a whole number of days.`);
  }
  return days;
}

/**
 * Links for one person of the report, or for everyone on it (`'everyone'`),
 * each valid for `days`. An archived report gets none: its links would not
 * open.
 */
export async function createPersonLinks(ctx: LinkScope, reportId: string, who: string, days: number): Promise<CreatedLink[]> {
  const report = await requireReport(ctx.db, ctx.workspaceId, reportId);
  if (report.archived) throw apiError('validation_failed', 'The report is archived: unarchive it before sharing it with its people.');
  const people = await readReportPeople(ctx, reportId);
  const chosen = who === 'everyone' ? people : people.filter((p) => p.profile_id === who);
  if (chosen.length === 0) {
    throw apiError('validation_failed', who === 'everyone' ? 'The report has no people yet.' : 'Choose a person of this report.');
  }
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + days * DAY_MS);
  const made = chosen.map((p) => ({ person: p, token: newToken() }));
  await retryingTransaction(ctx.db, async (trx) => {
    await insertPersonLinks(
      trx,
      made.map(({ person, token }) => ({ tokenHash: tokenHash(token), reportId, profileId: person.profile_id, createdBy: ctx.userId, expiresAt })),
      now,
    );
    // The report, not the people: the log names no person.
    await recordAudit(trx, {
      at: now,
      workspaceId: ctx.workspaceId,
      actor: { kind: 'user', userId: ctx.userId },
      action: 'create_person_links',
      objectKind: 'report',
      objectId: reportId,
      count: made.length,
    });
  });
  return made.map(({ person, token }) => ({ profileId: person.profile_id, name: person.display_name, token, expiresAt }));
}

export type LinkState = 'active' | 'expired' | 'revoked';

export interface PersonLinkListing {
  id: string;
  profileId: string;
  /** The person's name; null when they were removed from the report. */
  name: string | null;
  createdAt: Date;
  expiresAt: Date;
  lastOpenedAt: Date | null;
  state: LinkState;
}

function stateOf(link: { revoked_at: Date | null; expires_at: Date }, now: Date): LinkState {
  if (link.revoked_at !== null) return 'revoked';
  return link.expires_at.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** A report's private links, newest first, with who each is for and whether it still opens. */
export async function listReportPersonLinks(ctx: Omit<LinkScope, 'userId'>, reportId: string): Promise<PersonLinkListing[]> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const [links, people] = await Promise.all([listPersonLinks(ctx.db, reportId), readReportPeople(ctx, reportId)]);
  const names = new Map(people.map((p) => [p.profile_id, p.display_name]));
  const now = ctx.clock.now();
  return links.map((l) => ({
    id: l.id,
    profileId: l.profile_id,
    name: names.get(l.profile_id) ?? null,
    createdAt: l.created_at,
    expiresAt: l.expires_at,
    lastOpenedAt: l.last_opened_at,
    state: stateOf(l, now),
  }));
}

/** Revokes one link of the report (404 when it has no such live link) or, with `linkId` null, all of them; the number revoked. */
export async function revokeReportPersonLinks(ctx: LinkScope, reportId: string, linkId: string | null): Promise<number> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const now = ctx.clock.now();
  const revoked = await retryingTransaction(ctx.db, async (trx) => {
    const n = await revokePersonLinks(trx, reportId, linkId, now);
    if (n > 0) {
      await recordAudit(trx, {
        at: now,
        workspaceId: ctx.workspaceId,
        actor: { kind: 'user', userId: ctx.userId },
        action: 'revoke_person_links',
        objectKind: linkId === null ? 'report' : 'person_link',
        objectId: linkId ?? reportId,
        count: n,
      });
    }
    return n;
  });
  if (linkId !== null && revoked === 0) throw notFound('link');
  return revoked;
}

const GONE = {
  revoked: 'This link was withdrawn by the person who shared it. Ask them for a new one if you still need it.',
  expired: 'This link has expired. Ask the person who shared it for a new one.',
  unavailable: 'What this link showed is no longer available. Ask the person who shared it if you still need it.',
};

/** The link a token opens now, or 404 (no such link) / 410 (no longer opens), never saying more than that. */
async function liveLink(db: Db, now: Date, token: string): Promise<OpenedLinkRow> {
  if (!isTokenShaped(token)) throw notFound('link');
  const link = await findPersonLink(db, tokenHash(token));
  if (!link) throw notFound('link');
  const state = stateOf(link, now);
  if (state !== 'active') throw apiError('link_gone', GONE[state]);
  if (link.report_archived || link.profile_status !== 'active') throw apiError('link_gone', GONE.unavailable);
  return link;
}

export interface LinkViewContext {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  publicBaseUrl: string;
  /** Where the page shows an evidence image: an address through the same token. */
  imageUrl(token: string, imageId: string, variant?: 'preview'): string;
}

/**
 * The person's page a link opens (the same read as the signed-in page), with
 * their own trend and progress since their previous scan (the same read as
 * the signed-in page's, of this person only), recording that it was opened.
 */
export async function openPersonLink(ctx: LinkViewContext, token: string): Promise<PersonView & { progress: PersonProgressView }> {
  const now = ctx.clock.now();
  const link = await liveLink(ctx.db, now, token);
  const view = await readPerson(
    {
      db: ctx.db,
      clock: ctx.clock,
      cursors: ctx.cursors,
      publicBaseUrl: ctx.publicBaseUrl,
      workspaceId: link.workspace_id,
      imageUrl: (_reportId, imageId, variant) => ctx.imageUrl(token, imageId, variant),
    },
    link.report_id,
    link.profile_id,
  );
  const progress = await readPersonProgress({ db: ctx.db, workspaceId: link.workspace_id }, link.report_id, link.profile_id);
  await recordOpened(ctx.db, link.id, now);
  return { ...view, progress };
}

/** One evidence image of the link's person; another person's, or the report's own, is not found. */
export async function openPersonLinkEvidence(
  ctx: {
    db: Db;
    clock: Clock;
    media: Pick<MediaStore, 'open'>;
    log: { warn(details: object, message: string): void; error(details: object, message: string): void };
  },
  token: string,
  imageId: string,
  variant: EvidenceVariant,
): Promise<OpenedEvidence> {
  const link = await liveLink(ctx.db, ctx.clock.now(), token);
  return openEvidence({ db: ctx.db, workspaceId: link.workspace_id, media: ctx.media, log: ctx.log }, link.report_id, imageId, variant, link.profile_id);
}

/**
 * The people of `tokens` that are active links of this report in this
 * workspace, by profile id: what the people export right after making links
 * fills its "Private link" column with (a link's address is known only then:
 * only its hash is stored). Other tokens are left out.
 */
export async function activeLinkTokens(
  ctx: { db: Db; clock: Clock; workspaceId: string },
  reportId: string,
  tokens: readonly string[],
): Promise<Map<string, string>> {
  const byPerson = new Map<string, string>();
  for (const token of tokens.slice(0, MAX_EXPORTED_LINKS)) {
    let link: OpenedLinkRow;
    try {
      link = await liveLink(ctx.db, ctx.clock.now(), token);
    } catch (error) {
      // Unknown, revoked or expired: no address to give.
      if (error instanceof ApiError) continue;
      throw error;
    }
    if (link.workspace_id === ctx.workspaceId && link.report_id === reportId) byPerson.set(link.profile_id, token);
  }
  return byPerson;
}

/** Tokens looked up per export at most (a report's people are fewer than this). */
const MAX_EXPORTED_LINKS = 5000;
