/**
 * A reference for "PostgreSQL CPU per item": what the rows an item stores
 * cost to write by themselves, on the same server in the same run.
 *
 * After a drain, the people of the measured report have their items, their
 * analysis, their events, their evidence rows and their activity coverage
 * stored. Each person's two items are written again by bare statements, the
 * way the pipeline writes an item but with nothing else: per item, the
 * claim's update of the item, then one statement that ends it, bumps the
 * attachment and writes the item's rows (copies of the stored ones, under
 * new ids and keys, and the analysis as new values, so that every TOAST
 * value is written again). No fair queue, no reads, no contributions, no
 * deltas, no fold. Each item's statements run in a transaction that rolls
 * back, so nothing changes; the server's CPU is read around them as the
 * drain's window reads it (the postmaster and its children).
 *
 * What it trades: a rolled-back transaction skips its commit record and
 * leaves its dead rows to vacuum, so the figure is a floor (slightly under
 * what the same writes cost when committed), not a target. It answers how
 * much of an item's PostgreSQL CPU the design adds to the writes it cannot
 * avoid, as a ratio within one run: the machine's speed, which moves the
 * absolute figures between machines, cancels out.
 */
import pg from 'pg';
import { readServer, serverTicksBetween, ticksToMs } from './pipeline-setup.js';

export interface WritesAlone {
  people: number;
  items: number;
  /** The server's CPU per item while the writes were replayed. */
  postgres_ms_per_item: number;
  connections: number;
}

/** A person of the drained report: the item that stored the analysis and the item that stored the activity. */
export interface PersonItems {
  profile_id: string;
  analysis_item: string;
  activity_item: string;
}

/** The claim's write: the item running under a new claim. */
const CLAIM = `update scan_items set status = 'running', claim_id = gen_random_uuid(), attempts = attempts + 1, started_at = now()
                where id = $1`;

/** The end of the item that collected the profile: the attachment's bump, the analysis (new values), its evidence. */
const END_ANALYSIS_ITEM = `
  with ended as (update scan_items set status = 'succeeded', finished_at = now(), claim_id = null where id = $1 returning id),
       bumped as (update report_profiles set facts_version = facts_version + 1 where id = $2 returning id),
       analysis as (
         insert into profile_analyses (profile_id, report_id, item_id, catalog_version, profile_data, findings, good, optimize, unknown,
                                       captured_at, available_at, revision, analysis_json, analysis_format)
         select profile_id, report_id, item_id, catalog_version, profile_data, findings, good, optimize, unknown,
                now(), now(), md5(random()::text), analysis_json, analysis_format
           from profile_analyses where profile_id = $2
         on conflict (profile_id) do update
           set profile_data = excluded.profile_data || '{}'::jsonb, findings = excluded.findings || '[]'::jsonb,
               analysis_json = excluded.analysis_json || '', revision = excluded.revision, captured_at = excluded.captured_at
         returning 1),
       images as (${evidenceCopies()})
  select (select count(*) from ended) + (select count(*) from bumped) + (select count(*) from analysis) + (select count(*) from images) as n`;

/** The end of the item that collected the activity: the attachment's bump, the events (new keys), the coverage, its evidence. */
const END_ACTIVITY_ITEM = `
  with ended as (update scan_items set status = 'succeeded', finished_at = now(), claim_id = null where id = $1 returning id),
       bumped as (update report_profiles set facts_version = facts_version + 1 where id = $2 returning id),
       events as (
         insert into activity_events (id, report_id, profile_id, external_id, event_type, actor_kind, actor, source_url, text, occurred_at,
                                      counts, provenance, captured_at, available_at, updated_at, revision, content_hash)
         select gen_random_uuid(), report_id, profile_id, gen_random_uuid()::text, event_type, actor_kind, actor, source_url, text, occurred_at,
                counts, provenance, now(), now(), now(), revision, content_hash
           from activity_events where profile_id = $2
         returning 1),
       coverage as (
         insert into activity_coverage (profile_id, report_id, item_id, event_count, captured_at, available_at)
         select profile_id, report_id, $1, event_count + 1, now(), now() from activity_coverage where profile_id = $2
         on conflict (profile_id) do update set event_count = excluded.event_count, item_id = excluded.item_id, captured_at = excluded.captured_at
         returning 1),
       images as (${evidenceCopies()})
  select (select count(*) from ended) + (select count(*) from bumped) + (select count(*) from events) + (select count(*) from coverage)
         + (select count(*) from images) as n`;

/** Copies of the evidence rows item $1 stored, under new ids and image keys. */
function evidenceCopies(): string {
  return `insert into evidence_images (id, report_id, profile_id, item_id, section, original_sha256, original_size, original_type,
                                      preview_sha256, preview_size, preview_type, created_at, origin, original_width, original_height,
                                      preview_width, preview_height)
          select gen_random_uuid(), report_id, profile_id, item_id, section, md5(random()::text) || md5(random()::text), original_size, original_type,
                 preview_sha256, preview_size, preview_type, now(), origin, original_width, original_height, preview_width, preview_height
            from evidence_images where item_id = $1 and not obsolete
          returning 1`;
}

/** Up to `limit` people of `reportId` with an analysis and a second succeeded item, in a stable order. */
export async function loadPeople(pool: pg.Pool, reportId: string, limit: number): Promise<PersonItems[]> {
  const { rows } = await pool.query<PersonItems>(
    `select a.profile_id, a.item_id as analysis_item, other.id as activity_item
       from profile_analyses a
       join lateral (select i.id from scan_items i where i.profile_id = a.profile_id and i.id <> a.item_id and i.status = 'succeeded' limit 1) other on true
      where a.report_id = $1
      order by a.profile_id
      limit $2`,
    [reportId, limit],
  );
  if (rows.length === 0) throw new Error('writes alone: no person of the report has an analysis and a second item');
  return rows;
}

/**
 * The writes of one of a person's items, by bare statements in a transaction
 * that rolls back: the claim's update, then the end that stores the item's
 * rows (`which`: the item that stored the analysis, or the activity's).
 */
export async function replayItemWrites(client: pg.PoolClient, person: PersonItems, which: 'analysis' | 'activity'): Promise<void> {
  const item = which === 'analysis' ? person.analysis_item : person.activity_item;
  await client.query('begin');
  try {
    await client.query({ name: 'writes_alone_claim', text: CLAIM, values: [item] });
    const { rows } = await client.query<{ n: string }>({
      name: which === 'analysis' ? 'writes_alone_analysis' : 'writes_alone_activity',
      text: which === 'analysis' ? END_ANALYSIS_ITEM : END_ACTIVITY_ITEM,
      values: [item, person.profile_id],
    });
    if (Number(rows[0].n) < 2) throw new Error(`writes alone: item ${item} was not ended and bumped`);
  } finally {
    await client.query('rollback');
  }
}

/**
 * Replays the writes of up to `people` people of `reportId` (those with an
 * analysis and two items) on `connections` connections at once, and reads
 * the server's CPU around it.
 */
export async function measureWritesAlone(
  url: string,
  reportId: string,
  postmasterPid: number,
  options: { people: number; connections: number },
): Promise<WritesAlone> {
  const pool = new pg.Pool({ connectionString: url, max: options.connections, application_name: 'bench:writes-alone' });
  try {
    const people = await loadPeople(pool, reportId, options.people);
    // Every connection opened and its statements prepared before the reading starts.
    const clients = await Promise.all(Array.from({ length: options.connections }, () => pool.connect()));
    const replay = async (client: pg.PoolClient, person: PersonItems) => {
      await replayItemWrites(client, person, 'analysis');
      await replayItemWrites(client, person, 'activity');
    };
    await Promise.all(clients.map((client, i) => replay(client, people[i % people.length])));
    const before = readServer(postmasterPid);
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let i = next++; i < people.length; i = next++) await replay(client, people[i]);
      }),
    );
    const after = readServer(postmasterPid);
    for (const client of clients) client.release();
    if (!before || !after) throw new Error('writes alone: the server process could not be read');
    const items = people.length * 2;
    return {
      people: people.length,
      items,
      postgres_ms_per_item: Math.round((ticksToMs(serverTicksBetween(before, after).all) / items) * 100) / 100,
      connections: options.connections,
    };
  } finally {
    await pool.end();
  }
}
