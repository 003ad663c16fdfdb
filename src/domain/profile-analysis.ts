/**
 * One person's analysis from what was observed: the check catalog evaluated
 * on the latest profile data and activity, each finding with the evidence
 * images of its section, the counts, the revision and the served text
 * (findings-text.ts). Plain functions: the scan use-case reads the facts,
 * calls these, and the store writes the result.
 */
import { CATALOG_VERSION, evaluateChecks } from './checks/catalog.js';
import type { CollectedActivityEvent, CollectedProfile } from './collected.js';
import type { StoredAnalysis, StoredFinding } from './analysis-records.js';
import { analysisTemplate, ANALYSIS_TEXT_FORMAT } from './findings-text.js';
import { revisionOf } from './revision.js';

export interface ProfileFacts {
  profile: CollectedProfile;
  /** Null when the person's activity was never collected. */
  activity: CollectedActivityEvent[] | null;
  company: { name: string; domain: string | null };
  /** When the profile data was observed: checks are evaluated as of then, not of the processing time. */
  capturedAt: Date;
  /** Evidence image ids per section, in the order they are shown. */
  imagesBySection: ReadonlyMap<string, readonly string[]>;
}

/** What is stored of an analysis besides the profile data and the text. */
export interface ProfileAnalysis {
  catalog_version: string;
  findings: StoredFinding[];
  good: number;
  optimize: number;
  unknown: number;
  captured_at: Date;
  /** Of the findings and the observation time only, so an unchanged analysis keeps its revision. */
  revision: string;
}

export function analyzeProfile(facts: ProfileFacts): ProfileAnalysis {
  const findings = evaluateChecks({ profile: facts.profile, activity: facts.activity, company: facts.company, now: facts.capturedAt }).map((finding) => ({
    ...finding,
    evidence_image_ids: finding.source_section ? [...(facts.imagesBySection.get(finding.source_section) ?? [])] : [],
  }));
  const count = (outcome: string) => findings.filter((f) => f.outcome === outcome).length;
  return {
    catalog_version: CATALOG_VERSION,
    findings,
    good: count('good'),
    optimize: count('optimize'),
    unknown: count('unknown'),
    captured_at: facts.capturedAt,
    revision: revisionOf({ findings, captured_at: facts.capturedAt }),
  };
}

/** The stored analysis of a person, as far as deciding what to write needs it. */
export interface StoredAnalysisState {
  revision: string;
  catalog_version: string;
  captured_at: Date;
  available_at: Date;
  analysis_format: string | null;
}

/** The served text of an analysis (findings-text.ts), with the format it was rendered in. */
export interface AnalysisText {
  analysis_json: string;
  analysis_format: string;
}

/**
 * What to write for a new analysis, given the stored one:
 * - `unchanged`: the same revision, its text current: nothing;
 * - `text`: the same revision (it keeps its available_at, so the record stays
 *   the same) with a text of an older format (or none): the text only;
 * - `analysis`: a new analysis, available from `now`, with its text.
 */
export function analysisChange(
  reportId: string,
  stored: StoredAnalysisState | undefined,
  analysis: ProfileAnalysis,
  now: Date,
): { kind: 'unchanged' } | { kind: 'text'; text: AnalysisText } | { kind: 'analysis'; available_at: Date; text: AnalysisText } {
  const text = (record: StoredAnalysis): AnalysisText => ({ analysis_json: analysisTemplate(reportId, record), analysis_format: ANALYSIS_TEXT_FORMAT });
  if (stored?.revision === analysis.revision) {
    if (stored.analysis_format === ANALYSIS_TEXT_FORMAT) return { kind: 'unchanged' };
    return { kind: 'text', text: text({ ...stored, findings: analysis.findings }) };
  }
  return { kind: 'analysis', available_at: now, text: text({ ...analysis, available_at: now }) };
}
