/**
 * The people of a report as CSV: who they are, status, score, counts, each
 * check's outcome (one column per catalog check) and the recommendations
 * for the checks to optimize. Values from scanned profiles that a
 * spreadsheet would run as a formula (= + - @, tab, CR) are prefixed with
 * a quote (OWASP "CSV injection").
 */
import { stringify } from 'csv-stringify/sync';
import { CHECKS } from '../domain/checks/catalog.js';
import { fillCompanyPlaceholders } from '../domain/recommendation-text.js';
import type { FindingsRecord } from '../use-cases/report-view.js';
import { label, PERSON_REASON } from './components/labels.js';

function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

export function peopleCsv(records: FindingsRecord[], companyName: string): string {
  const header = [
    'name',
    'title',
    'headline',
    'pronet_url',
    'status',
    'score_pct',
    'good',
    'optimize',
    'unknown',
    ...CHECKS.map((c) => c.key),
    'recommendations',
  ];
  const rows = records.map((r) => {
    const checks = new Map((r.analysis?.checks ?? []).map((c) => [c.key, c]));
    const advice = (r.analysis?.checks ?? [])
      .filter((c) => c.outcome === 'optimize' && c.recommendation)
      .map((c) => `${c.title}: ${fillCompanyPlaceholders(c.recommendation, companyName)}`)
      .join(' | ');
    return [
      cell(r.name),
      cell(r.title),
      cell(r.headline),
      cell(r.pronet_url),
      r.analysis ? 'analyzed' : label(PERSON_REASON, r.reason).toLowerCase(),
      cell(r.analysis?.counts.score_pct ?? null),
      cell(r.analysis?.counts.good ?? null),
      cell(r.analysis?.counts.optimize ?? null),
      cell(r.analysis?.counts.unknown ?? null),
      ...CHECKS.map((c) => checks.get(c.key)?.outcome ?? ''),
      cell(advice),
    ];
  });
  return stringify([header, ...rows]);
}
