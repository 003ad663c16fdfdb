/**
 * The company's name as a person reads it in advice: "Name Acme in your
 * headline", not "Acme GmbH". A report's display name defaults to its
 * company name without a trailing legal form (GmbH, Inc., Ltd., S.A., SARL,
 * AG, LLC, plc …), and a lead may change it on the report page; it is the
 * web's own and never part of the API's report record.
 */

/** Legal forms, compared without dots, spaces or case ("S.A." = "SA", "Co. KG" = "CoKG"). */
const LEGAL_FORMS = new Set(
  [
    'GmbH',
    'GmbH & Co. KG',
    'GmbH & Co KG',
    'gGmbH',
    'mbH',
    'AG',
    'KG',
    'KGaA',
    'OHG',
    'eK',
    'eV',
    'UG',
    'UG (haftungsbeschränkt)',
    'SE',
    'Inc',
    'Incorporated',
    'Corp',
    'Corporation',
    'Co',
    'Company',
    'LLC',
    'LLP',
    'LP',
    'Ltd',
    'Limited',
    'PLC',
    'Pty Ltd',
    'Pvt Ltd',
    'SA',
    'SAS',
    'SASU',
    'SARL',
    'EURL',
    'SNC',
    'SpA',
    'Srl',
    'BV',
    'NV',
    'AB',
    'AS',
    'ASA',
    'A/S',
    'ApS',
    'Oy',
    'Oyj',
    'SL',
    'SLU',
    'KK',
    'Sp z oo',
    'sro',
    'as',
  ].map(normalize),
);

function normalize(form: string): string {
  return form.toLowerCase().replace(/[\s.,]/g, '');
}

/** The longest legal form is a few words: look at most this many trailing words. */
const MAX_FORM_WORDS = 4;

/**
 * The company name without its trailing legal form(s) and the comma before
 * them: "Acme GmbH" → "Acme", "Widgets, Inc." → "Widgets", "Foo Holding
 * GmbH & Co. KG" → "Foo Holding". A name that is only a legal form is kept.
 */
export function companyDisplayName(companyName: string): string {
  let words = companyName.trim().split(/\s+/u).filter(Boolean);
  for (;;) {
    let cut = 0;
    for (let n = Math.min(MAX_FORM_WORDS, words.length - 1); n >= 1; n--) {
      if (LEGAL_FORMS.has(normalize(words.slice(-n).join(' ')))) {
        cut = n;
        break;
      }
    }
    if (cut === 0) break;
    words = words.slice(0, -cut);
  }
  const name = words.join(' ').replace(/[\s,;&-]+$/u, '');
  return name === '' ? companyName.trim() : name;
}

/** The name a report's advice uses: the lead's choice, else the company name without its legal form. */
export function reportCompanyDisplayName(report: { company_name: string; display_company_name: string | null }): string {
  return report.display_company_name ?? companyDisplayName(report.company_name);
}

/** The longest display name accepted (the column's check). */
export const DISPLAY_NAME_MAX = 200;
