/**
 * Checks a form's report or people against the API's own request schemas
 * (src/domain/schemas) and URL identity rules, so a page accepts exactly what
 * the API accepts; problems come back as the API's details, then in words.
 */
import { distinctDetails, type ErrorDetail } from '../domain/errors.js';
import { batchesOf, quoted } from '../domain/people-sheet.js';
import { apiFields, normalizeRows, type SubmittedProfile } from '../domain/roster-plan.js';
import { detailsFromSchemaErrors, makeAjv } from '../domain/schema-validation.js';
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

/** People to import, checked as the imports of at most `perImport` people the commit sends (row numbers count from the first person). */
export function checkPeople(profiles: SubmittedProfile[], perImport = 100): { urls: string[]; details: ErrorDetail[] } {
  const schema = (profiles.length === 0 ? [[]] : batchesOf(profiles, perImport)).flatMap((batch, index) =>
    validateImport({ profiles: batch.map(apiFields) })
      ? []
      : detailsFromSchemaErrors(validateImport.errors ?? [], { rowsMember: 'profiles' }).map((d) =>
          d.row_number === undefined ? d : { ...d, row_number: d.row_number + index * perImport },
        ),
  );
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

/**
 * One sentence per problem. With `people` (the page's own rows and where each
 * came from, people-input.ts), a row's problem names the spreadsheet row and
 * quotes the value: the user's own file, shown back to them on the page only.
 */
export function describeDetails(details: ErrorDetail[], people?: { profiles: SubmittedProfile[]; origins: string[] }): string[] {
  return details.map((d) => {
    const what = FIELD_NAMES[d.field] ?? d.field;
    const problem = CODES[d.code] ?? `is not accepted (${d.code})`;
    if (d.row_number === undefined) return `The ${what} ${problem}.`;
    const origin = people?.origins[d.row_number - 1];
    if (!people || !origin) return `Person ${d.row_number}: the ${what} ${problem}.`;
    const value = (people.profiles[d.row_number - 1] as unknown as Record<string, unknown> | undefined)?.[d.field];
    return `${origin}: the ${what}${typeof value === 'string' && value !== '' ? ` ${quoted(value)}` : ''} ${problem}.`;
  });
}
