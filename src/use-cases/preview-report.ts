/**
 * The preview of a new report's people before it is created (the web form
 * shows it like an import preview): the same planning rule as creation and
 * imports (domain/roster-plan.ts), against an empty roster, so the counts
 * are exactly what the commit will do (4.4 rule 2: the first occurrence of a
 * duplicate is kept). Changes nothing.
 */
import { planRoster, type SubmittedProfile } from '../domain/roster-plan.js';

export interface NewReportPreview {
  counts: { submitted: number; would_add: number; duplicate_in_input: number; would_queue_profiles: number };
  rows: { row_number: number; status: 'would_add' | 'duplicate_in_input'; duplicate_of_row?: number }[];
}

export function previewNewReport(profiles: SubmittedProfile[], urls: string[]): NewReportPreview {
  const plan = planRoster(profiles, urls, new Map());
  const added = plan.filter((r) => r.status === 'add').length;
  return {
    counts: { submitted: profiles.length, would_add: added, duplicate_in_input: plan.length - added, would_queue_profiles: added },
    rows: plan.map((row) =>
      row.status === 'duplicate_in_input'
        ? { row_number: row.row_number, status: 'duplicate_in_input' as const, duplicate_of_row: row.duplicate_of_row }
        : { row_number: row.row_number, status: 'would_add' as const },
    ),
  };
}
