/**
 * Named types of the API, taken from the generated OpenAPI types
 * (./openapi-types.ts): the client's types cannot drift from the document
 * the server serves.
 */
import type { components, operations } from './openapi-types.js';

type Schemas = components['schemas'];
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Context = Schemas['Context'];
export type Limits = Schemas['Limits'];
export type Workspace = Schemas['Workspace'];
export type Report = Schemas['Report'];
export type Profile = Schemas['Profile'];
export type Scan = Schemas['Scan'];
export type ScanStatus = Scan['status'];
export type ScanMode = Scan['mode'];
export type CreateReport = Schemas['CreateReport'];
export type CreateProfile = Schemas['CreateProfile'];
export type CreatedReport = Schemas['CreatedReport'];
export type ExistingReports = Schemas['ExistingReports'];
export type ProfileImport = Schemas['ProfileImport'];
export type ImportValidation = Schemas['ImportValidation'];
export type ImportReceipt = Schemas['ImportReceipt'];
/** The refresh extension's answer (not part of the contract). */
export type RefreshReceipt = Schemas['RefreshReceipt'];
export type RefreshBody = Schemas['RefreshBody'];
export type AnalysisSummary = Schemas['AnalysisSummary'];
export type FindingsRecord = Schemas['FindingsRecord'];
export type ActivityEvent = Schemas['ActivityEvent'];
export type ErrorEnvelope = Schemas['Error'];

/** Query of GET /reports without the cursor (the iterators handle it). */
export type ListReportsQuery = Omit<Query<'listReports'>, 'cursor'>;
/** Query of GET /reports/{id}/profiles without the cursor. */
export type ListProfilesQuery = Omit<Query<'listReportProfiles'>, 'cursor'>;
/** Filters and limit of GET …/analysis/profiles (cursor and expected_revision are the traversal's). */
export type FindingsQuery = Omit<Query<'listAnalysisProfiles'>, 'cursor' | 'expected_revision'>;
/** Filters and limit of GET …/analysis/activity. */
export type ActivityQuery = Omit<Query<'listAnalysisActivity'>, 'cursor' | 'expected_revision'>;

export type CollectionName = 'profiles' | 'activity';
export interface RecordOf {
  profiles: FindingsRecord;
  activity: ActivityEvent;
}
export interface QueryOf {
  profiles: FindingsQuery;
  activity: ActivityQuery;
}

/** Scan statuses after which a run changes no more (2.6). */
export const TERMINAL_SCAN_STATUSES: readonly ScanStatus[] = ['completed', 'partial', 'failed', 'inaccessible', 'cancelled'];
export const isTerminal = (scan: Pick<Scan, 'status'>): boolean => TERMINAL_SCAN_STATUSES.includes(scan.status);
