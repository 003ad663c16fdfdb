/** Saved import receipts (4.8 rule 3, 4.9). */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function insertReceipt(
  db: Kysely<Database>,
  input: { id: string; reportId: string; workspaceId: string; receipt: unknown; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('import_receipts')
    .values({
      id: input.id,
      report_id: input.reportId,
      workspace_id: input.workspaceId,
      receipt: JSON.stringify(input.receipt),
      created_at: input.createdAt,
      expires_at: input.expiresAt,
    })
    .execute();
}

export async function findReceipt(db: Kysely<Database>, workspaceId: string, reportId: string, importId: string) {
  return db
    .selectFrom('import_receipts')
    .select(['receipt', 'created_at', 'expires_at'])
    .where('workspace_id', '=', workspaceId)
    .where('report_id', '=', reportId)
    .where('id', '=', importId)
    .executeTakeFirst();
}
