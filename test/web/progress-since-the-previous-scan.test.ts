/**
 * History and progress: two rounds of scans of one report (the
 * second a refresh), with simulated profiles edited in between
 * (SIMULATOR_EDITS), against a real server, PostgreSQL and scan worker. A
 * person who fixed two gaps improved, one with a new gap regressed, one who
 * became private is not compared, a check that went from `optimize` to
 * `unknown` is not fixed; the report page's counts, its chart's data, the
 * person page and the CSV say the same; the contract's records gain no field.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MaintenanceRunner } from '../../src/maintenance.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { refreshReportRollup } from '../../src/store/rollup-repository.js';
import { createMediaStore } from '../../src/scanning/media/create-media-store.js';
import { AnalysisSummaryResponse, FindingsPage } from '../../src/domain/schemas/analysis.js';
import { roundFigures, scanScorePct, teamProgress, type Outcomes } from '../../src/domain/progress.js';
import type { CheckTotals } from '../../src/domain/analysis-aggregate.js';
import { addPersonMoves, emptyProgressTotals } from '../../src/domain/progress-state.js';
import { readPeopleProgress, readPersonProgress, readReportProgress } from '../../src/use-cases/progress.js';
import { eventually, reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { assertTotalsMatchRebuild } from '../support/rollups.js';
import { WebClient, webUser, type WebUser } from '../support/web.js';

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/** The schema's errors of `body` (the contract's schemas allow no member they do not name). */
function schemaErrors(schema: object, body: unknown): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`);
}

const url = (slug: string) => `https://pronet.example/in/${slug}`;
const PEOPLE = {
  fixer: 'progress-fixer-ann',
  regressor: 'progress-regressor-ben',
  private: 'progress-private-cat',
  unknown: 'progress-unknown-dan',
  same: 'progress-same-eve',
};

describe('history and progress', () => {
  let t: TestApp;
  let clock: ManualClock;
  let owner: Tenant;
  let web: WebUser;
  let editsFile: string;
  let reportId: string;
  const ids: Record<keyof typeof PEOPLE, string> = {} as never;

  const writeEdits = (edits: Record<string, unknown>) =>
    fs.writeFile(editsFile, JSON.stringify(Object.fromEntries(Object.entries(edits).map(([slug, edit]) => [url(slug), edit]))));

  async function round() {
    const worker = await t.startWorker(2);
    await scansFinished(t, owner.secret, reportId);
    await worker.stop();
  }

  /** One forced maintenance run of the test's service, on `at`'s clock. */
  const maintenanceAt = async (at: ManualClock) =>
    new MaintenanceRunner({
      db: t.runtime.db,
      media: await createMediaStore(t.config.media),
      retention: t.config.retention,
      clock: at,
      logger: createLogger('silent', 'test'),
      metrics: t.metrics,
    }).runOnce({ force: true });

  const snapshots = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from report_snapshots where report_id = ${reportId}`.execute(t.runtime.db)).rows[0].n);

  before(async () => {
    editsFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'ps-edits-')), 'edits.json');
    // The first scan: the fixer lacks a photo and a banner, the regressor has a photo, the "unknown" person lacks a banner.
    await writeEdits({
      [PEOPLE.fixer]: { profile: { has_photo: false, has_banner: false } },
      [PEOPLE.regressor]: { profile: { has_photo: true } },
      [PEOPLE.unknown]: { profile: { has_banner: false } },
    });
    clock = new ManualClock(new Date('2026-11-20T12:00:00Z'));
    t = await startTestApp({ clock, env: { SIMULATOR_EDITS: editsFile } });
    owner = await t.tenant();
    web = await webUser(t, owner.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'progress-create' },
      body: reportBody({ profiles: Object.values(PEOPLE).map((slug) => ({ pronet_url: url(slug), name: slug })) }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    // The creation's rows answer the submitted rows by number, in the order of PEOPLE.
    for (const row of created.body.data.profiles.rows as { profile_id: string; row_number: number }[]) {
      ids[(Object.keys(PEOPLE) as (keyof typeof PEOPLE)[])[row.row_number - 1]] = row.profile_id;
    }
    await round();
    await eventually(async () => (await snapshots()) === 1);

    // Between the scans: the fixer adds both, the regressor removes the photo, the third goes private,
    // the fourth's banner can no longer be observed (null), the fifth changes nothing.
    await writeEdits({
      [PEOPLE.fixer]: { profile: { has_photo: true, has_banner: true } },
      [PEOPLE.regressor]: { profile: { has_photo: false } },
      [PEOPLE.private]: { inaccessible: true },
      [PEOPLE.unknown]: { profile: { has_banner: null } },
    });
    clock.advance(60_000);
    const refreshed = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, {
      key: owner.secret,
      headers: { 'idempotency-key': 'progress-refresh' },
    });
    assert.equal(refreshed.status, 201, refreshed.text);
    await round();
    await eventually(async () => (await snapshots()) === 2);
  });
  after(async () => {
    await t?.close();
    await fs.rm(path.dirname(editsFile), { recursive: true, force: true });
  });

  const findings = async (): Promise<any[]> =>
    (await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=25`, { key: owner.secret })).body.data;
  const progress = () => readReportProgress({ db: t.runtime.db, workspaceId: owner.workspaceId }, reportId);
  const people = () => readPeopleProgress({ db: t.runtime.db, workspaceId: owner.workspaceId }, reportId);
  /** The team's progress summed from each person's, as the exports read them. */
  const teamOfPeople = async () => {
    const totals = emptyProgressTotals();
    for (const person of (await people()).values()) addPersonMoves(totals, person, 1);
    return teamProgress(totals);
  };

  test('a person who fixed two gaps improved, with exactly those two fixed', async () => {
    const p = (await people()).get(ids.fixer)!;
    assert.equal(p.state, 'improved');
    assert.deepEqual(p.fixed, ['identity.has_photo', 'identity.has_banner']);
    assert.deepEqual(p.opened, []);
    assert.ok(p.changePct !== null && p.changePct > 0, `change ${p.changePct}`);
  });

  test('a person with a new gap regressed', async () => {
    const p = (await people()).get(ids.regressor)!;
    assert.equal(p.state, 'regressed');
    assert.deepEqual(p.opened, ['identity.has_photo']);
    assert.deepEqual(p.fixed, []);
  });

  test('a person whose profile became private is not compared: their earlier results stay shown', async () => {
    const p = (await people()).get(ids.private)!;
    assert.equal(p.state, 'not_rescanned');
    assert.deepEqual([p.fixed, p.opened, p.changePct], [[], [], null]);
    const record = (await findings()).find((r) => r.profile_id === ids.private);
    assert.ok(record?.analysis, 'the earlier analysis is still shown');
  });

  test('a check that moved from optimize to unknown is not fixed', async () => {
    const p = (await people()).get(ids.unknown)!;
    assert.deepEqual(p.fixed, []);
    assert.equal(p.state, 'unchanged');
    const outcomes = await sql<{ banner: string }>`
      select outcomes->>'identity.has_banner' as banner from person_scan_history where profile_id = ${ids.unknown} order by seq`.execute(t.runtime.db);
    assert.deepEqual(
      outcomes.rows.map((r) => r.banner),
      ['optimize', 'unknown'],
    );
  });

  test('a person scanned again with nothing changed is unchanged, and each scan is kept', async () => {
    const p = (await people()).get(ids.same)!;
    assert.equal(p.state, 'unchanged');
    assert.equal(p.changePct, 0);
    const rows = await sql<{ n: string }>`select count(*) as n from person_scan_history where profile_id = ${ids.same}`.execute(t.runtime.db);
    assert.equal(Number(rows.rows[0].n), 2);
  });

  test("the report page's counts, its chart's data and the CSV agree with the people's progress", async () => {
    const { team, rounds } = await progress();
    assert.deepEqual(
      { improved: team.counts.improved, regressed: team.counts.regressed, unchanged: team.counts.unchanged, not_rescanned: team.counts.not_rescanned },
      { improved: 1, regressed: 1, unchanged: 2, not_rescanned: 1 },
    );
    assert.equal(team.fixedTotal, 2);
    assert.equal(team.openedTotal, 1);
    const page = await web.client.get(`/reports/${reportId}`);
    assert.equal(page.status, 200);
    const count = (state: string) => Number(new RegExp(`data-state="${state}"><strong>(\\d+)</strong>`).exec(page.text)?.[1]);
    assert.deepEqual([count('improved'), count('regressed'), count('unchanged'), count('not_rescanned')], [1, 1, 2, 1]);
    assert.match(page.text, /id="gaps-fixed">2</);
    assert.match(page.text, /id="gaps-new">1</);
    // The chart: one point per completed round, the last one the summary's score now.
    const points = JSON.parse(/data-points="([^"]*)"/.exec(page.text)![1].replaceAll('&quot;', '"')) as (number | null)[];
    assert.equal(points.length, 2);
    assert.deepEqual(
      points,
      rounds.map((r) => r.scorePct),
    );
    const summary = (await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret })).body.data;
    assert.equal(points[1], summary.optimization_summary.counts.score_pct);
    assert.match(page.text, /<title id="team-trend-title">Team score by completed scan: /);

    const csv = await web.client.get(`/reports/${reportId}/people.csv?columns=machine`);
    assert.equal(csv.status, 200);
    const rows = parse<Record<string, string>>(csv.text.replace(/^\uFEFF/, ''), { columns: true });
    const header = Object.keys(rows[0]);
    assert.deepEqual(header.slice(-5), ['progress', 'previous_weighted_score_pct', 'weighted_score_change', 'fixed_since_previous', 'new_since_previous']);
    const states = rows.map((r) => r.progress);
    for (const state of ['improved', 'regressed', 'unchanged', 'not_rescanned'] as const) {
      assert.equal(states.filter((s) => s === state).length, team.counts[state], state);
    }
    const fixer = rows.find((r) => r.pronet_url.endsWith(PEOPLE.fixer))!;
    assert.equal(fixer.fixed_since_previous, 'identity.has_photo identity.has_banner');
    assert.equal(Math.round((Number(fixer.weighted_score_pct) - Number(fixer.previous_weighted_score_pct)) * 10) / 10, Number(fixer.weighted_score_change));
    const gone = rows.find((r) => r.pronet_url.endsWith(PEOPLE.private))!;
    assert.deepEqual([gone.previous_weighted_score_pct, gone.weighted_score_change], ['', '']);
  });

  test("the team's progress the report's roll-up keeps is the sum of each person's, and what a rebuild from the stored rows gives", async () => {
    const { team } = await progress();
    assert.deepEqual(team, await teamOfPeople());
    assert.ok(team.counts.improved + team.counts.regressed > 0, 'the fixture compares people');
    await assertTotalsMatchRebuild(t, reportId);
  });

  test("roll-ups stored before they kept the team's progress are recomputed from the stored rows by the migration runner and by maintenance", async () => {
    const expected = (await progress()).team;
    const forget = async () => {
      await sql`update report_aggregates set totals = totals - 'progress' where report_id = ${reportId}`.execute(t.runtime.db);
      await sql`update profile_contributions set contribution = contribution - 'progress' where report_id = ${reportId}`.execute(t.runtime.db);
      assert.equal((await progress()).team.counts.improved, 0, 'the forgotten roll-up counts no one');
    };
    await forget();
    await migrateToLatest(t.runtime.db);
    assert.deepEqual((await progress()).team, expected);
    await forget();
    const report = await maintenanceAt(clock);
    assert.equal(report!.progress_rollups, 1);
    assert.deepEqual((await progress()).team, expected);
    await assertTotalsMatchRebuild(t, reportId);
  });

  test("a person's page shows their trend and what they fixed since the last scan", async () => {
    const page = await web.client.get(`/reports/${reportId}/people/${ids.fixer}`);
    assert.equal(page.status, 200);
    const fixed = /<ul id="fixed-since">([\s\S]*?)<\/ul>/.exec(page.text)?.[1] ?? '';
    assert.deepEqual(
      [...fixed.matchAll(/data-check="([^"]+)"/g)].map((m) => m[1]),
      ['identity.has_photo', 'identity.has_banner'],
    );
    const points = JSON.parse(/id="person-trend"[\s\S]*?data-points="([^"]*)"/.exec(page.text)![1].replaceAll('&quot;', '"')) as number[];
    assert.equal(points.length, 2);
    assert.ok(points[1] > points[0]);
    const unknown = await web.client.get(`/reports/${reportId}/people/${ids.unknown}`);
    assert.doesNotMatch(unknown.text, /id="fixed-since"/);
  });

  test("a person's private link shows their own trend and what they fixed since the last scan, and nothing of anyone else", async () => {
    const made = await web.client.submit(`/reports/${reportId}/links`, `/reports/${reportId}/links`, { person: ids.fixer, days: '30' });
    assert.equal(made.status, 200, made.text);
    const address = /<input id="new-link-\d+" type="text" readonly value="([^"]+)"/.exec(made.text)?.[1];
    assert.ok(address, 'the link was made');
    const page = await new WebClient(t.baseUrl).get(new URL(address).pathname);
    assert.equal(page.status, 200);
    const fixed = /<ul id="fixed-since">([\s\S]*?)<\/ul>/.exec(page.text)?.[1] ?? '';
    assert.deepEqual(
      [...fixed.matchAll(/data-check="([^"]+)"/g)].map((m) => m[1]),
      ['identity.has_photo', 'identity.has_banner'],
    );
    assert.match(page.text, /<strong>Improved<\/strong>/);
    const points = JSON.parse(/id="person-trend"[\s\S]*?data-points="([^"]*)"/.exec(page.text)![1].replaceAll('&quot;', '"')) as number[];
    const own = await web.client.get(`/reports/${reportId}/people/${ids.fixer}`);
    assert.deepEqual(points, JSON.parse(/id="person-trend"[\s\S]*?data-points="([^"]*)"/.exec(own.text)![1].replaceAll('&quot;', '"')));
    assert.equal(points.length, 2);
    for (const other of Object.values(PEOPLE).filter((slug) => slug !== PEOPLE.fixer)) assert.ok(!page.text.includes(other), `nothing of ${other}`);
    assert.doesNotMatch(page.text, /id="team-trend"|id="progress-counts"/);
  });

  test("the contract's records gain no field from the history (its schemas allow no other member)", async () => {
    const page = await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=25`, { key: owner.secret });
    assert.deepEqual(schemaErrors(FindingsPage, page.body), []);
    const summary = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret });
    assert.deepEqual(schemaErrors(AnalysisSummaryResponse, summary.body), []);
  });

  test('rows an earlier version wrote without what changed since the previous scan, or without their score, get both from the migration runner and from maintenance, as the finish computes them', async () => {
    const stored = async () =>
      (
        await sql<{ item_id: string; compared: boolean; since_previous: unknown; scored: boolean; score_pct: number | null }>`
          select item_id, compared, since_previous, scored, score_pct from person_scan_history where report_id = ${reportId} order by seq`.execute(t.runtime.db)
      ).rows;
    const byFinish = await stored();
    assert.ok(byFinish.some((r) => r.since_previous !== null) && byFinish.every((r) => r.compared), 'the finish compared every row');
    assert.ok(
      byFinish.every((r) => r.scored && r.score_pct !== null),
      'the finish scored every row',
    );
    const forget = () =>
      sql`update person_scan_history set compared = false, since_previous = null, scored = false, score_pct = null where report_id = ${reportId}`.execute(
        t.runtime.db,
      );
    const team = (await progress()).team;
    // The roll-up made from the forgotten rows counts everyone as a first scan, until the comparisons are filled in.
    const forgetAndRollUp = async () => {
      await forget();
      await t.runtime.db.transaction().execute((trx) => refreshReportRollup(trx, reportId, 'all', new Date()));
      assert.equal((await progress()).team.counts.first_scan, 4);
    };
    await forgetAndRollUp();
    await migrateToLatest(t.runtime.db);
    assert.deepEqual(await stored(), byFinish);
    assert.deepEqual((await progress()).team, team);
    await forgetAndRollUp();
    const report = await maintenanceAt(clock);
    assert.equal(report!.history_comparisons, byFinish.length);
    assert.deepEqual(await stored(), byFinish);
    assert.deepEqual((await progress()).team, team);
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('each completed round keeps its trend figures, computed from its counts; rounds recorded without them get them from the migration runner and from maintenance', async () => {
    const stored = async () =>
      (
        await sql<{ id: string; pointed: boolean; score_pct: number | null; top_gaps: string[] | null; checks: Record<string, CheckTotals> }>`
          select id, pointed, score_pct, top_gaps, checks from report_snapshots where report_id = ${reportId} order by id`.execute(t.runtime.db)
      ).rows;
    const recorded = await stored();
    assert.equal(recorded.length, 2);
    for (const round of recorded) {
      assert.ok(round.pointed);
      assert.deepEqual({ scorePct: round.score_pct, topGaps: round.top_gaps }, roundFigures(round.checks));
    }
    const { rounds } = await progress();
    const forget = async () => {
      await sql`update report_snapshots set pointed = false, score_pct = null, top_gaps = null where report_id = ${reportId}`.execute(t.runtime.db);
      // Until then, the trend computes them from the counts.
      assert.deepEqual((await progress()).rounds, rounds);
    };
    await forget();
    await migrateToLatest(t.runtime.db);
    assert.deepEqual(await stored(), recorded);
    await forget();
    const report = await maintenanceAt(clock);
    assert.equal(report!.history_comparisons, recorded.length);
    assert.deepEqual(await stored(), recorded);
    assert.deepEqual((await progress()).rounds, rounds);
  });

  test("a person's trend shows each scan's stored score, the weighted score of that scan's outcomes", async () => {
    const rows = (
      await sql<{ outcomes: Outcomes; score_pct: number | null }>`
        select outcomes, score_pct from person_scan_history where profile_id = ${ids.fixer} order by seq`.execute(t.runtime.db)
    ).rows;
    assert.equal(rows.length, 2);
    assert.deepEqual(
      rows.map((r) => r.score_pct),
      rows.map((r) => scanScorePct(r.outcomes)),
    );
    const { trend } = await readPersonProgress({ db: t.runtime.db, workspaceId: owner.workspaceId }, reportId, ids.fixer);
    assert.deepEqual(
      trend.map((p) => p.scorePct),
      rows.map((r) => r.score_pct),
    );
  });

  // Last: it deletes the first round's history.
  test('retention deletes exactly the history older than HISTORY_RETENTION_MONTHS, and /metrics counts it', async () => {
    const rows = async () =>
      (
        await sql<{ scanned_at: Date }>`select scanned_at from person_scan_history h join report_profiles p on p.id = h.profile_id
                                         where p.report_id = ${reportId}`.execute(t.runtime.db)
      ).rows.map((r) => r.scanned_at.toISOString());
    const before = await rows();
    const rounds = (await sql<{ completed_at: Date }>`select completed_at from report_snapshots where report_id = ${reportId}`.execute(t.runtime.db)).rows;
    // 24 months after a moment between the two rounds (12:00 and 12:01 on the service clock).
    const at = new ManualClock(new Date('2028-11-20T12:00:30Z'));
    const report = await maintenanceAt(at);
    const cutoff = '2026-11-20T12:00:30.000Z';
    const older = before.filter((s) => s < cutoff).length;
    const olderRounds = rounds.filter((r) => r.completed_at.toISOString() < cutoff).length;
    assert.ok(older > 0 && olderRounds > 0 && older < before.length, 'the fixture has history on both sides of the cutoff');
    assert.equal(report!.scan_history, older + olderRounds);
    assert.deepEqual((await rows()).sort(), before.filter((s) => s >= cutoff).sort());
    const left = (await sql<{ n: string }>`select count(*) as n from report_snapshots where report_id = ${reportId}`.execute(t.runtime.db)).rows[0].n;
    assert.equal(Number(left), rounds.length - olderRounds);
    // The registry /metrics serves.
    assert.match(await t.metrics.registry.metrics(), /profile_scan_maintenance_rows_total\{[^}]*task="scan_history"[^}]*\} [1-9]/);
    // Everyone's newest scan stayed: the team's progress is what it was.
    assert.deepEqual((await progress()).team, await teamOfPeople());
  });

  // After the retention test: it deletes what history is left.
  test("when retention deletes a person's newest scan, the team's progress counts them as the people's read does", async () => {
    await maintenanceAt(new ManualClock(new Date('2030-01-01T00:00:00Z')));
    const { team } = await progress();
    assert.equal(team.counts.not_analyzed, Object.keys(PEOPLE).length);
    assert.deepEqual(team, await teamOfPeople());
    await assertTotalsMatchRebuild(t, reportId);
  });
});
