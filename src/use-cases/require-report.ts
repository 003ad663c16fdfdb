/**
 * A report a use-case acts on, in the acting workspace: found, or the
 * contract's 404 `not_found` (a report of another workspace is not found
 * either: nothing reveals that it exists). Shared by the API's routes, the
 * web's pages and every use-case that reads one report.
 */
import { notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import type { FusedCall } from '../store/fused-read.js';
import { findReport, reportFusedCall, type FindReportOptions, type ReportRow } from '../store/report-repository.js';
import { findScanRun, type ScanRunRow } from '../store/scan-repository.js';

export async function requireReport(db: Db, workspaceId: string, reportId: string, options: FindReportOptions = {}): Promise<ReportRow> {
  const report = await findReport(db, { workspaceId, reportId }, options);
  if (!report) throw notFound('report');
  return report;
}

/** The report's read, to be fused with the request's authorization (store/fused-read.ts); requireReport takes its answer. */
export function reportPrefetch(reportId: string): FusedCall {
  return reportFusedCall(reportId);
}

/** A report in any workspace, for the operator (the CLI): found or undefined. */
export async function findAnyReport(db: Db, reportId: string): Promise<ReportRow | undefined> {
  return findReport(db, { anyWorkspace: true, reportId });
}

/** A scan run of a report in the acting workspace, or the contract's 404. */
export async function requireScanRun(db: Db, workspaceId: string, reportId: string, runId: string): Promise<ScanRunRow> {
  const run = await findScanRun(db, workspaceId, reportId, runId);
  if (!run) throw notFound('scan run');
  return run;
}
