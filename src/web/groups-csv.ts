/**
 * The compare view's figures as CSV (docs/web.md, "Groups"): one row per
 * group, the same figures the page shows (use-cases/report-groups.ts), in
 * the user's separator, written like the people CSV (people-csv.ts csvOf).
 */
import { CATEGORIES } from '../domain/checks/catalog.js';
import { GROUP_GAPS_SHOWN } from '../domain/group-summary.js';
import type { CsvSeparator } from '../use-cases/export-preferences.js';
import type { Comparison } from '../use-cases/report-groups.js';
import { csvOf } from './people-csv.js';

export function groupsCsv(comparison: Pick<Comparison, 'column' | 'groups'>, separator: CsvSeparator): string {
  const header = [
    'Column',
    'Group',
    'People',
    'Analyzed',
    'Score (good of answered, %)',
    'Good',
    'To optimize',
    'Unknown',
    'Activity read',
    ...CATEGORIES.map((c) => `${c.title} (%)`),
    ...Array.from({ length: GROUP_GAPS_SHOWN }, (_, i) => [`Gap ${i + 1}`, `Gap ${i + 1} people`]).flat(),
  ];
  const rows = comparison.groups.map((g) => {
    const o = g.optimization;
    const byKey = new Map(o.categories.map((c) => [c.key, c]));
    return [
      { value: comparison.column, kind: 'text' as const },
      { value: g.value, kind: 'text' as const },
      { value: g.coverage.person_profiles, kind: 'number' as const },
      { value: g.coverage.optimization.analyzed_profiles, kind: 'number' as const },
      { value: o.counts.score_pct, kind: 'pct' as const },
      { value: o.counts.good, kind: 'number' as const },
      { value: o.counts.optimize, kind: 'number' as const },
      { value: o.counts.unknown, kind: 'number' as const },
      { value: g.coverage.activity.observed_person_profiles, kind: 'number' as const },
      ...CATEGORIES.map((c) => ({ value: byKey.get(c.key)?.score_pct ?? null, kind: 'pct' as const })),
      ...Array.from({ length: GROUP_GAPS_SHOWN }, (_, i) => [
        { value: g.gaps[i]?.check.title ?? null, kind: 'text' as const },
        { value: g.gaps[i]?.people ?? null, kind: 'number' as const },
      ]).flat(),
    ];
  });
  return csvOf(header, rows, separator);
}
