/**
 * Presenters, below every interface (the API, the web pages, the CLI): stored
 * rows as the contract's resources (2.4-2.6), the one place where column
 * names become API field names, and the service's own URLs. Every URL is
 * built from the base URL the caller passes (app.publicBaseUrl: config.ts publicBaseUrlOf), never
 * guessed.
 */
import type { ProfileRow, ReportRow } from '../store/report-repository.js';
import type { ScanRunRow } from '../store/scan-repository.js';
import type { Profile, Report, Scan } from '../domain/schemas/report.js';
import { evidencePath } from '../domain/findings-text.js';
import type { EvidenceVariant } from './read-evidence.js';

export function reportUrl(base: string, reportId: string): string {
  return `${base}/api/v1/reports/${reportId}`;
}

/** The report's page in the web workspace (src/web): `workspace_url`, which needs normal workspace access (5.5). */
export function workspaceReportUrl(base: string, reportId: string): string {
  return `${base}/reports/${reportId}`;
}

export function publicReportUrl(base: string, token: string): string {
  return `${base}/public/reports/${token}`;
}

/** The download address of an evidence image (`evidence.images[].url`); the original unless `preview`. */
export function evidenceUrl(base: string, reportId: string, imageId: string, variant: EvidenceVariant = 'original'): string {
  return base + evidencePath(reportId, imageId, variant === 'preview' ? 'preview' : undefined);
}

/** A report's two pages (the summary's `links`): in the workspace, and its public page when shared. */
export function reportLinks(row: ReportRow, base: string): { workspace_url: string; public_url: string | null } {
  return {
    workspace_url: workspaceReportUrl(base, row.id),
    public_url: row.visibility === 'public' && row.public_token ? publicReportUrl(base, row.public_token) : null,
  };
}

export function presentReport(row: ReportRow, base: string): Report {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    company: {
      name: row.company_name,
      supplied_domain: row.supplied_domain,
      root_domain: row.root_domain,
      pronet_company_url: row.pronet_company_url,
    },
    visibility: row.visibility,
    archived: row.archived,
    analysis_state: row.analysis_state,
    profile_count: row.profile_count,
    analyzed_profile_count: row.analyzed_profile_count,
    ...reportLinks(row, base),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentProfile(row: ProfileRow): Profile {
  return {
    id: row.id,
    report_id: row.report_id,
    pronet_url: row.pronet_url,
    name: row.name,
    title: row.title,
    headline: row.headline,
    source: row.source,
    analysis_available: row.analysis_available,
    added_at: row.added_at.toISOString(),
  };
}

export function presentScan(row: ScanRunRow): Scan {
  return {
    id: row.id,
    report_id: row.report_id,
    mode: row.mode,
    status: row.status,
    counts: { requested: row.requested, completed: row.completed, warnings: row.warnings, failed: row.failed },
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    completed_at: row.completed_at?.toISOString() ?? null,
    terminal_reason: row.terminal_reason,
  };
}
