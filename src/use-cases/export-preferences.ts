/**
 * The web's export preferences: a user's CSV separator, remembered for their
 * next download, and a report's company display name, the name advice uses
 * (domain/company-name.ts).
 */
import { DISPLAY_NAME_MAX } from '../domain/company-name.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { readCsvSeparator, writeCsvSeparator, writeDisplayCompanyName, type CsvSeparator } from '../store/export-preference-repository.js';

export type { CsvSeparator };
export { readCsvSeparator };

export function parseCsvSeparator(value: string | undefined): CsvSeparator | null {
  return value === 'comma' || value === 'semicolon' ? value : null;
}

export async function rememberCsvSeparator(db: Db, userId: string, value: string | undefined): Promise<CsvSeparator> {
  const separator = parseCsvSeparator(value);
  if (!separator) throw apiError('validation_failed', 'Choose a comma or a semicolon.');
  await writeCsvSeparator(db, userId, separator);
  return separator;
}

/** An empty name resets it to the default (the company name without its legal form). */
export async function setCompanyDisplayName(ctx: { db: Db; workspaceId: string; now: Date }, reportId: string, value: string | undefined): Promise<void> {
  const name = (value ?? '').trim().replace(/\s+/gu, ' ');
  if (name.length > DISPLAY_NAME_MAX) throw apiError('validation_failed', `The name can have at most ${DISPLAY_NAME_MAX} characters.`);
  if (!(await writeDisplayCompanyName(ctx.db, ctx.workspaceId, reportId, name === '' ? null : name, ctx.now))) throw notFound('report');
}
