/**
 * Checks a form's report or people against the API's own request schemas
 * (src/domain/schemas) and URL identity rules, so a page accepts exactly what
 * the API accepts; problems come back as the API's details, then in words.
 */
import { distinctDetails, type ErrorDetail } from '../domain/errors.js';
import { apiFields, normalizeRows, type SubmittedProfile } from '../domain/roster-plan.js';
import { detailsFromSchemaErrors, makeAjv } from '../http/validation.js';
import { CreateReport as CreateReportSchema } from '../domain/schemas/report.js';
import { ProfileImport } from '../domain/schemas/import.js';
import { createReportProblems } from '../use-cases/create-report.js';

// The API's body validation, so that a form accepts exactly what the API accepts.
const ajv = makeAjv('body');
const validateCreate = ajv.compile(CreateReportSchema);
const validateImport = ajv.compile(ProfileImport);

export interface CheckedReport {
  body: NewReportBody;
  urls: string[];
  details: ErrorDetail[];
}

export type NewReportBody = {
  name: string;
  company: { name: string; domain: string; pronet_company_url: string };
  profiles: SubmittedProfile[];
};

export function checkNewReport(body: NewReportBody): CheckedReport {
  // The API's schema sees the four fields it accepts; imported columns are the web's own (people-input.ts).
  const schema = validateCreate({ ...body, profiles: body.profiles.map(apiFields) })
    ? []
    : detailsFromSchemaErrors(validateCreate.errors ?? [], { rowsMember: 'profiles' });
  const { details, urls } = createReportProblems(body);
  return { body, urls, details: distinctDetails([...schema, ...details], Infinity) };
}

export function checkPeople(profiles: SubmittedProfile[]): { urls: string[]; details: ErrorDetail[] } {
  const schema = validateImport({ profiles: profiles.map(apiFields) }) ? [] : detailsFromSchemaErrors(validateImport.errors ?? [], { rowsMember: 'profiles' });
  const { urls, problems } = normalizeRows(profiles);
  return { urls, details: distinctDetails([...schema, ...problems], Infinity) };
}

const FIELD_NAMES: Record<string, string> = {
  name: 'name',
  'company.name': 'company name',
  'company.domain': 'company domain',
  'company.pronet_company_url': 'company page URL',
  pronet_url: 'profile URL',
  title: 'title',
  headline: 'headline',
  profiles: 'people',
};

const CODES: Record<string, string> = {
  required: 'is required',
  too_long: 'is too long',
  too_short: 'is empty',
  invalid_url: 'is not an http(s) profile URL',
  invalid_format: 'is not valid',
  invalid_type: 'is not valid',
  too_many: 'has too many entries (at most 100)',
  too_few: 'needs at least one person',
  unknown_field: 'has an unknown field',
};

/** One sentence per problem, never echoing the submitted value. */
export function describeDetails(details: ErrorDetail[]): string[] {
  return details.map((d) => {
    const what = FIELD_NAMES[d.field] ?? d.field;
    const problem = CODES[d.code] ?? `is not accepted (${d.code})`;
    return d.row_number !== undefined ? `Person ${d.row_number}: the ${what} ${problem}.` : `The ${what} ${problem}.`;
  });
}
