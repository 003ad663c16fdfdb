/**
 * A report a use-case acts on, in the acting workspace: found, or the
 * contract's 404 `not_found` (a report of another workspace is not found
 * either: nothing reveals that it exists). Shared by the API's routes, the
 * web's pages and every use-case that reads one report.
 */
import { notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { findReport, type FindReportOptions, type ReportRow } from '../store/report-repository.js';

export async function requireReport(db: Db, workspaceId: string, reportId: string, options: FindReportOptions = {}): Promise<ReportRow> {
  const report = await findReport(db, { workspaceId, reportId }, options);
  if (!report) throw notFound('report');
  return report;
}
