/**
 * Plans what a batch of submitted people does to a roster (4.4 rule 2, 4.8,
 * section 3): each row becomes `add`, `restore`, `already_present` or
 * `duplicate_in_input` (first occurrence kept). Pure: the caller supplies
 * the roster's current attachments by normalized URL.
 */
import { normalizeProfileUrl } from './profile-url.js';

export interface SubmittedProfile {
  pronet_url: string;
  name?: string;
  title?: string;
  headline?: string;
  /**
   * The other columns a CSV import from the web carried (e.g. department,
   * office), by header: the web's people table filters by them. The API does
   * not accept them (its schema has the four fields above) and never shows
   * them (docs/web.md, "Imported columns").
   */
  columns?: Record<string, string>;
}

/** Imported columns per person at most, and the longest header and value (characters). */
export const IMPORTED_COLUMN_LIMITS = { columns: 10, name: 40, value: 200 } as const;

/** The four fields the API accepts of a submitted person, without the imported columns: what its schema validates. */
export function apiFields({ columns: _columns, ...profile }: SubmittedProfile): Omit<SubmittedProfile, 'columns'> {
  return profile;
}

export interface ExistingAttachment {
  id: string;
  status: 'active' | 'removed';
}

export type PlannedStatus = 'add' | 'restore' | 'already_present' | 'duplicate_in_input';

export interface PlannedRow {
  row_number: number;
  status: PlannedStatus;
  url: string;
  profile: SubmittedProfile;
  /** The attachment that is restored or already present. */
  existing_id?: string;
  duplicate_of_row?: number;
}

export interface RowProblem {
  row_number: number;
  field: 'pronet_url';
  code: 'invalid_url' | 'too_long';
}

/**
 * Normalizes every row's URL; returns the problems of rows whose URL is not
 * a profile URL. Tolerates rows of the wrong shape (the schema reports those),
 * so that one 422 can list every problem.
 */
export function normalizeRows(profiles: SubmittedProfile[]): { urls: string[]; problems: RowProblem[] } {
  const urls: string[] = [];
  const problems: RowProblem[] = [];
  profiles.forEach((profile, index) => {
    if (typeof profile?.pronet_url !== 'string') {
      urls.push('');
      return;
    }
    const result = normalizeProfileUrl(profile.pronet_url);
    if (result.ok) urls.push(result.url);
    else {
      urls.push('');
      problems.push({ row_number: index + 1, field: 'pronet_url', code: result.problem });
    }
  });
  return { urls, problems };
}

export function planRoster(profiles: SubmittedProfile[], urls: string[], existing: ReadonlyMap<string, ExistingAttachment>): PlannedRow[] {
  const firstRow = new Map<string, number>();
  return profiles.map((profile, index) => {
    const row_number = index + 1;
    const url = urls[index];
    const first = firstRow.get(url);
    if (first !== undefined) return { row_number, status: 'duplicate_in_input', url, profile, duplicate_of_row: first };
    firstRow.set(url, row_number);
    const current = existing.get(url);
    if (!current) return { row_number, status: 'add', url, profile };
    if (current.status === 'removed') return { row_number, status: 'restore', url, profile, existing_id: current.id };
    return { row_number, status: 'already_present', url, profile, existing_id: current.id };
  });
}
