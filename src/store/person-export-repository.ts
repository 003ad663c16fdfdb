/**
 * Everything stored about a person, for an access request
 * (use-cases/personal-data.ts, exportPerson): per attachment, the report it
 * belongs to, what was supplied, its history, the scans of it, the
 * observations (profile, activity, analysis, coverage) and the evidence
 * rows (their images are added from the media store by the caller).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function readPersonRecords(db: Kysely<Database>, workspaceId: string, target: { reportId: string; profileId: string } | { url: string }) {
  let query = db.selectFrom('report_profiles').selectAll().where('workspace_id', '=', workspaceId);
  query = 'url' in target ? query.where('pronet_url', '=', target.url) : query.where('report_id', '=', target.reportId).where('id', '=', target.profileId);
  const profiles = await query.orderBy('report_id').orderBy('id').execute();
  const out = [];
  for (const profile of profiles) {
    const id = profile.id;
    const [report, events, items, analysis, activity, coverage, evidence, contribution] = await Promise.all([
      db.selectFrom('reports').select(['id', 'name', 'company_name']).where('id', '=', profile.report_id).executeTakeFirstOrThrow(),
      db.selectFrom('profile_events').select(['event', 'source', 'import_id', 'at']).where('profile_id', '=', id).orderBy('at').orderBy('id').execute(),
      db
        .selectFrom('scan_items')
        .select([
          'id',
          'run_id',
          'run_mode',
          'run_created_at',
          'kind',
          'status',
          'attempts',
          'warning',
          'reason',
          'created_at',
          'started_at',
          'finished_at',
          'activity_gap',
        ])
        .where('profile_id', '=', id)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
      db.selectFrom('profile_analyses').selectAll().where('profile_id', '=', id).executeTakeFirst(),
      db.selectFrom('activity_events').selectAll().where('profile_id', '=', id).orderBy('id').execute(),
      db.selectFrom('activity_coverage').selectAll().where('profile_id', '=', id).executeTakeFirst(),
      db.selectFrom('evidence_images').selectAll().where('profile_id', '=', id).orderBy('created_at').orderBy('id').execute(),
      db.selectFrom('profile_contributions').select('contribution').where('profile_id', '=', id).executeTakeFirst(),
    ]);
    out.push({
      report,
      profile,
      history: events,
      scans: items,
      analysis: analysis ?? null,
      activity,
      activity_coverage: coverage ?? null,
      report_contribution: contribution?.contribution ?? null,
      evidence_images: evidence.map((e) => ({ ...e, original_base64: null as string | null, preview_base64: null as string | null })),
    });
  }
  return out;
}

/** What names a person of a report on a confirmation: supplied name, observed name and URL; undefined when not in the workspace. */
export async function readPersonLabel(db: Kysely<Database>, workspaceId: string, reportId: string, profileId: string) {
  return db
    .selectFrom('report_profiles as p')
    .leftJoin('profile_analyses as a', 'a.profile_id', 'p.id')
    .select(['p.name', 'p.pronet_url', sql<string | null>`nullif(btrim(a.profile_data ->> 'name'), '')`.as('observed_name')])
    .where('p.workspace_id', '=', workspaceId)
    .where('p.report_id', '=', reportId)
    .where('p.id', '=', profileId)
    .executeTakeFirst();
}
