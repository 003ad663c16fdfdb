/**
 * GET /public/reports/:token — the page behind a report's `public_url`
 * (2.4), served without a bearer key.
 *
 * Contract 5.5: public visibility does not grant access to underlying
 * fields. The page therefore shows only the report name, the company name
 * and two counts (people, analyzed people): no people, names, profile URLs,
 * findings, evidence or ids. It is not part of API v1 (outside /api/v1, no
 * `config.access`, hidden from the OpenAPI document), so the authorization
 * plugin never runs for it. An unknown token, a report made private again
 * (its token is dropped) or an archived report is 404 in the usual error
 * envelope. Every value is HTML-escaped; the page loads nothing external.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { findReportByPublicToken, type ReportRow } from '../../store/report-repository.js';
import { notFound } from '../../domain/errors.js';

/** Tokens are base64url (newPublicToken); anything else cannot match and is 404 via params validation. */
const PublicTokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }) }, { additionalProperties: false });

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

export function publicReportPage(report: Pick<ReportRow, 'name' | 'company_name' | 'profile_count' | 'analyzed_profile_count'>): string {
  const name = escapeHtml(report.name);
  const company = escapeHtml(report.company_name);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${name} · ${company}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1.5rem}dt{color:#666}</style>
</head>
<body>
<h1>${name}</h1>
<dl>
<dt>Company</dt><dd>${company}</dd>
<dt>People</dt><dd>${report.profile_count}</dd>
<dt>Analyzed</dt><dd>${report.analyzed_profile_count}</dd>
</dl>
</body>
</html>
`;
}

export async function publicRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;

  app.get<{ Params: { token: string } }>(
    '/public/reports/:token',
    { schema: { hide: true, params: PublicTokenParams } },
    async (request, reply) => {
      const report = await findReportByPublicToken(db, request.params.token);
      if (!report || report.archived) throw notFound('report');
      // X-Request-ID and Cache-Control: no-store come from the server's onRequest hook.
      return reply
        .type('text/html; charset=utf-8')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        .header('X-Content-Type-Options', 'nosniff')
        // The token is the URL's secret: do not leak it through Referer.
        .header('Referrer-Policy', 'no-referrer')
        .send(publicReportPage(report));
    },
  );
}
