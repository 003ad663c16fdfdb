/**
 * Private links to one person's page (migration 0046): stored by the
 * SHA-256 of their token, listed and revoked per report. Every query that
 * takes a report is scoped by the caller's workspace through the report.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, PersonLinksTable } from './schema.js';

export type PersonLinkRow = Selectable<PersonLinksTable>;

export async function insertPersonLinks(
  db: Kysely<Database>,
  links: { tokenHash: Buffer; reportId: string; profileId: string; createdBy: string | null; expiresAt: Date }[],
  now: Date,
): Promise<PersonLinkRow[]> {
  if (links.length === 0) return [];
  return db
    .insertInto('person_links')
    .values(
      links.map((l) => ({
        id: randomUUID(),
        token_hash: l.tokenHash,
        report_id: l.reportId,
        profile_id: l.profileId,
        created_by: l.createdBy,
        created_at: now,
        expires_at: l.expiresAt,
      })),
    )
    .returningAll()
    .execute();
}

/** A report's links, newest first (revoked and expired ones too: the list says so). */
export async function listPersonLinks(db: Kysely<Database>, reportId: string): Promise<PersonLinkRow[]> {
  return db.selectFrom('person_links').selectAll().where('report_id', '=', reportId).orderBy('created_at', 'desc').orderBy('id').execute();
}

export interface OpenedLinkRow extends PersonLinkRow {
  workspace_id: string;
  report_archived: boolean;
  profile_status: string;
}

/** The link a token's hash names, with what decides whether it still opens: its report and its person. */
export async function findPersonLink(db: Kysely<Database>, tokenHash: Buffer): Promise<OpenedLinkRow | undefined> {
  return db
    .selectFrom('person_links as l')
    .innerJoin('reports as r', 'r.id', 'l.report_id')
    .innerJoin('report_profiles as p', 'p.id', 'l.profile_id')
    .selectAll('l')
    .select(['r.workspace_id', 'r.archived as report_archived', 'p.status as profile_status'])
    .where('l.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function recordOpened(db: Kysely<Database>, linkId: string, now: Date): Promise<void> {
  await db.updateTable('person_links').set({ last_opened_at: now }).where('id', '=', linkId).execute();
}

/** Revokes one link of the report (`linkId`) or all its live ones; the number revoked. */
export async function revokePersonLinks(db: Kysely<Database>, reportId: string, linkId: string | null, now: Date): Promise<number> {
  const result = await db
    .updateTable('person_links')
    .set({ revoked_at: now })
    .where('report_id', '=', reportId)
    .where('revoked_at', 'is', null)
    .$if(linkId !== null, (qb) => qb.where('id', '=', linkId!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
