/**
 * Benchmark data, written straight into PostgreSQL so that seeding 10,000
 * analyzed people takes seconds: a workspace with raised write limits and a
 * `*` test key (through the same repositories the admin CLI uses), plain
 * reports for the read scenarios, and reports whose people are all analyzed
 * (`insert … select generate_series`), with findings evaluated by the real
 * check catalog on simulator profiles.
 *
 * Row shapes follow src/store/migrations/*.sql and refreshFindings in
 * src/store/analysis-repository.ts; roll-ups and aggregates are then rebuilt
 * with refreshReportRollup (src/store/rollup-repository.ts), as every write
 * of the service does.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { evaluateChecks, CATALOG_VERSION } from '../src/domain/checks/catalog.js';
import { revisionOf } from '../src/domain/revision.js';
import { analysisTemplate, ANALYSIS_TEXT_FORMAT } from '../src/domain/findings-text.js';
import type { StoredFinding } from '../src/domain/analysis-records.js';
import { SimulatorCollector } from '../src/scanning/collectors/simulator/index.js';
import type { Db } from '../src/store/database.js';
import { insertReport } from '../src/store/report-repository.js';
import { refreshReportRollup } from '../src/store/rollup-repository.js';
import { updateWorkspace } from '../src/store/workspace-repository.js';
import { createWorkspace } from '../src/use-cases/workspace-settings.js';
import { issueKeyAsOperator } from '../src/use-cases/manage-keys.js';

export interface Tenant {
  workspaceId: string;
  secret: string;
}

/** Distinct findings templates; person i gets template i % TEMPLATES. */
const TEMPLATES = 16;
const COMPANY = { name: 'Acme Benchmarks', domain: 'acme-bench.example' };

/**
 * A workspace whose write limits are raised through its settings (never
 * switched off), with one `*` test key. Read limits are raised by the
 * service's READ_LIMIT_MULTIPLIER.
 */
export async function createTenant(db: Db): Promise<Tenant> {
  const now = new Date();
  const workspace = await createWorkspace(db, 'Benchmark', now);
  await updateWorkspace(
    db,
    workspace.id,
    {
      writes_per_minute_per_key: 1_000_000,
      writes_per_minute_per_workspace: 1_000_000,
      submitted_profiles_per_minute_per_workspace: 100_000_000,
    },
    now,
  );
  const key = await issueKeyAsOperator({ db, clock: { now: () => now } }, { workspaceId: workspace.id, scopes: ['*'], mode: 'test' });
  return { workspaceId: workspace.id, secret: key.secret };
}

/** `count` reports without people, one second apart (newest first); returns their ids, newest first. */
export async function seedReports(db: Db, workspaceId: string, count: number, label: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url,
                         visibility, archived, created_at, updated_at)
    select gen_random_uuid(), ${workspaceId}::uuid, ${label} || ' ' || i, 'Acme ' || i, 'www.acme-' || i || '.example',
           'acme-' || i || '.example', 'https://pronet.example/company/acme-' || i, 'private', false,
           now() - make_interval(secs => i), now() - make_interval(secs => i)
    from generate_series(1, ${count}::integer) as i
    order by i
    returning id`.execute(db);
  return result.rows.map((r) => r.id);
}

interface Template {
  profile_data: unknown;
  findings: unknown[];
  good: number;
  optimize: number;
  unknown: number;
  captured_at: string;
  revision: string;
}

/** Findings of simulator profiles, evaluated by the real catalog (as refreshFindings stores them). */
async function findingTemplates(): Promise<Template[]> {
  const simulator = new SimulatorCollector({ delayMs: 0 });
  const templates: Template[] = [];
  for (let k = 0; k < TEMPLATES; k++) {
    const result = await simulator.collect({
      kind: 'person',
      mode: 'full_profile',
      url: `https://pronet.example/in/bench-template-${k}`,
      attempt: 1,
      signal: new AbortController().signal,
    });
    if (result.outcome !== 'ok' || !result.profile) throw new Error('the simulator returned no profile for a benchmark template');
    const capturedAt = new Date(result.captured_at);
    const findings = evaluateChecks({ profile: result.profile, activity: null, company: COMPANY, now: capturedAt }).map((f) => ({
      ...f,
      evidence_image_ids: [],
    }));
    const count = (outcome: string) => findings.filter((f) => f.outcome === outcome).length;
    templates.push({
      profile_data: result.profile,
      findings,
      good: count('good'),
      optimize: count('optimize'),
      unknown: count('unknown'),
      captured_at: capturedAt.toISOString(),
      revision: revisionOf({ findings, captured_at: capturedAt }),
    });
  }
  return templates;
}

let templates: Promise<Template[]> | null = null;

/**
 * A report of `people` active, analyzed attachments: one completed
 * full-profile run, one succeeded item and one stored analysis per person.
 */
export async function seedAnalyzedReport(db: Db, workspaceId: string, people: number): Promise<string> {
  templates ??= findingTemplates();
  const json = JSON.stringify(await templates);
  const now = new Date();
  const found = await templates;
  return db.transaction().execute(async (trx) => {
    const report = await insertReport(
      trx,
      {
        workspaceId,
        name: `Analyzed ${people}`,
        companyName: COMPANY.name,
        suppliedDomain: COMPANY.domain,
        rootDomain: COMPANY.domain,
        pronetCompanyUrl: 'https://pronet.example/company/acme-bench',
        visibility: 'private',
      },
      now,
    );
    const runId = randomUUID();
    await sql`
      insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, completed, created_at, started_at, completed_at)
      values (${runId}::uuid, ${report.id}::uuid, ${workspaceId}::uuid, 'full_profile', 'test', 'completed',
              ${people}::integer, ${people}::integer, ${now}, ${now}, ${now})`.execute(trx);
    // Ids derived from (report, i) so the three inserts agree without a round trip.
    await sql`
      insert into report_profiles (id, report_id, workspace_id, pronet_url, name, source, status, analysis_available,
                                   added_at, created_at, updated_at)
      select md5(${report.id} || ':profile:' || i)::uuid, ${report.id}::uuid, ${workspaceId}::uuid,
             'https://pronet.example/in/bench-person-' || i, 'Person ' || i, 'urls', 'active', true,
             ${now}::timestamptz - make_interval(secs => i), ${now}, ${now}
      from generate_series(1, ${people}::integer) as i`.execute(trx);
    await sql`
      insert into scan_items (id, run_id, run_mode, run_created_at, report_id, profile_id, kind, status, attempts, created_at, ready_at, started_at, finished_at)
      select md5(${report.id} || ':item:' || i)::uuid, ${runId}::uuid, 'full_profile', ${now}, ${report.id}::uuid,
             md5(${report.id} || ':profile:' || i)::uuid, 'person', 'succeeded', 1, ${now}, ${now}, ${now}, ${now}
      from generate_series(1, ${people}::integer) as i`.execute(trx);
    // The record's `analysis` text, as refreshFindings stores it (src/domain/findings-text.ts).
    const texts = found.map((t) =>
      analysisTemplate(report.id, {
        revision: t.revision,
        catalog_version: CATALOG_VERSION,
        findings: t.findings as StoredFinding[],
        captured_at: new Date(t.captured_at),
        available_at: now,
      }),
    );
    await sql`
      insert into profile_analyses (profile_id, report_id, item_id, catalog_version, profile_data, findings,
                                    good, optimize, unknown, captured_at, available_at, revision, analysis_json, analysis_format)
      select md5(${report.id} || ':profile:' || i)::uuid, ${report.id}::uuid, md5(${report.id} || ':item:' || i)::uuid,
             ${CATALOG_VERSION}, t -> 'profile_data', t -> 'findings', (t ->> 'good')::integer, (t ->> 'optimize')::integer,
             (t ->> 'unknown')::integer, (t ->> 'captured_at')::timestamptz, ${now}, t ->> 'revision',
             (${texts}::text[])[i % ${TEMPLATES}::integer + 1], ${ANALYSIS_TEXT_FORMAT}
      from generate_series(1, ${people}::integer) as i,
           lateral (select ${json}::jsonb -> (i % ${TEMPLATES}::integer) as t) as template`.execute(trx);
    await refreshReportRollup(trx, report.id, 'all', now);
    return report.id;
  });
}

/** Seeded data shared by scenarios; each fixture is created once, on first use. */
export class Fixtures {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    readonly tenant: Tenant,
  ) {}

  private once<T>(key: string, create: () => Promise<T>): Promise<T> {
    if (!this.cache.has(key)) this.cache.set(key, create());
    return this.cache.get(key) as Promise<T>;
  }

  /** 200 plain reports; the newest is the one read by GET /reports/{id}. */
  readReports(): Promise<string[]> {
    return this.once('read', () => seedReports(this.db, this.tenant.workspaceId, 200, 'Read report'));
  }

  analyzedReport(people: number): Promise<string> {
    return this.once(`analyzed:${people}`, () => seedAnalyzedReport(this.db, this.tenant.workspaceId, people));
  }

  /** `count` empty reports to import into (one per connection). */
  importReports(label: string, count: number): Promise<string[]> {
    return this.once(`import:${label}`, () => seedReports(this.db, this.tenant.workspaceId, count, `Import ${label}`));
  }
}
