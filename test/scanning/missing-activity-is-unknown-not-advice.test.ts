/**
 * Absence is never advice, through a real server, real workers and a real
 * PostgreSQL: a person whose activity the source did not deliver, could not
 * attribute, or failed to collect gets `unknown` activity checks (never
 * `optimize`), and the summary's `limitations` says why in a code of its
 * own; a positively empty activity still gets its verdict. A later attempt
 * that observes nothing never erases an earlier observation, and a later
 * observation clears the gap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ActivityGap, CollectResult } from '../../src/domain/collected.js';
import type { Collector, CollectRequest } from '../../src/scanning/collectors/collector.js';
import { ManualClock } from '../../src/clock.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import { reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { handlerContext, scanQueued } from '../support/handler.js';
import { assertTotalsMatchRebuild, foldsSettled } from '../support/rollups.js';
import { removeFromReport } from '../support/operator.js';

const ACTIVITY_KEYS = [
  'activity.posted_recently',
  'activity.regular_posting',
  'activity.posts_get_engagement',
  'activity.comments_on_others',
  'activity.reposts_company',
];
const GAP_CODES = ['activity_not_delivered', 'activity_unattributable', 'activity_collection_failed'];

describe('absence is never advice: activity that was not observed', () => {
  let t: TestApp;
  let owner: Tenant;
  const clock = new ManualClock(new Date());

  before(async () => {
    t = await startTestApp({ clock });
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  async function get(path: string) {
    const res = await t.request('GET', path, { key: owner.secret });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** Each person's activity check outcomes, by the last path segment of their URL. */
  async function activityOutcomes(reportId: string): Promise<Map<string, Record<string, string>>> {
    const records = (await get(`/api/v1/reports/${reportId}/analysis/profiles?limit=25`)).data;
    const out = new Map<string, Record<string, string>>();
    for (const record of records) {
      assert.ok(record.analysis, `${record.pronet_url} is analyzed`);
      const checks = record.analysis.checks.filter((c: { key: string }) => ACTIVITY_KEYS.includes(c.key));
      assert.equal(checks.length, ACTIVITY_KEYS.length, 'every activity check is in the record');
      out.set(record.pronet_url.split('/').pop(), Object.fromEntries(checks.map((c: { key: string; outcome: string }) => [c.key, c.outcome])));
    }
    return out;
  }

  test('undelivered, unattributable and failed activity: the checks are unknown and the limitations say why; positively empty activity gets its verdict', async () => {
    const slugs = ['undelivered-una-ray', 'unattributable-uma-lee', 'activityfail-fay-oak', 'quiet-quinn-ash', 'jane-doe'];
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'activity-gaps-simulator' },
      body: reportBody({ profiles: slugs.map((s) => ({ pronet_url: `https://pronet.example/in/${s}` })) }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId: string = created.body.data.report.id;
    const worker = await t.startWorker(2);
    const summary = await scansFinished(t, owner.secret, reportId, slugs.length);
    // The tests below drive the items themselves, with a collector of their own.
    await worker.stop();

    const codes = summary.limitations.map((l: { code: string }) => l.code);
    for (const code of [...GAP_CODES, 'incomplete_activity_coverage']) assert.ok(codes.includes(code), `${code} in ${codes.join(', ')}`);
    for (const limitation of summary.limitations) assert.ok(typeof limitation.message === 'string' && limitation.message.length > 0);
    assert.equal(summary.coverage.activity.observed_person_profiles, 2, 'only the quiet and the ordinary person were observed');
    assert.equal(summary.coverage.activity.incomplete_person_profiles, 3);
    assert.ok(summary.work.counts.warnings >= 3, 'an activity item that observed nothing is a warning');

    const outcomes = await activityOutcomes(reportId);
    for (const slug of slugs.slice(0, 3)) {
      assert.deepEqual(outcomes.get(slug), Object.fromEntries(ACTIVITY_KEYS.map((k) => [k, 'unknown'])), slug);
    }
    const quiet = outcomes.get('quiet-quinn-ash')!;
    assert.equal(quiet['activity.posted_recently'], 'optimize', 'a positively empty activity is advice');
    assert.equal(quiet['activity.regular_posting'], 'optimize');
    assert.equal(quiet['activity.comments_on_others'], 'optimize');
    assert.equal(quiet['activity.reposts_company'], 'optimize');
    assert.equal(outcomes.get('jane-doe')!['activity.posted_recently'], 'good');

    // Nothing was stored as observed for them: no coverage, no events.
    const rows = await t.runtime.db
      .selectFrom('report_profiles as p')
      .leftJoin('activity_coverage as c', 'c.profile_id', 'p.id')
      .select(['p.pronet_url', 'c.event_count'])
      .where('p.report_id', '=', reportId)
      .execute();
    for (const row of rows) {
      const slug = row.pronet_url.split('/').pop()!;
      assert.equal(row.event_count === null, slugs.slice(0, 3).includes(slug), slug);
    }
    await assertTotalsMatchRebuild(t, reportId);
  });

  /** The simulator, with the person's activity replaced by what the test says (undefined: the simulator's own). */
  class PlannedActivity implements Collector {
    readonly name = 'simulator';
    readonly #sim = new SimulatorCollector({ delayMs: 0 });
    activity: { events: [] } | { gap: ActivityGap } | undefined;
    async collect(request: CollectRequest): Promise<CollectResult> {
      const result = await this.#sim.collect(request);
      if (result.outcome !== 'ok' || request.kind !== 'person' || request.mode !== 'activity' || this.activity === undefined) return result;
      return 'gap' in this.activity ? { ...result, activity: null, activity_gap: this.activity.gap } : { ...result, activity: [] };
    }
  }

  test('a later attempt that observes nothing keeps the earlier observation and says so; a later observation clears the gap', async () => {
    const planned = new PlannedActivity();
    const processAll = async () => {
      await scanQueued(t, handlerContext(t, planned));
      await foldsSettled(t);
    };
    const profiles = [{ pronet_url: 'https://pronet.example/in/ada-lane' }];
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'activity-gaps-later' },
      body: reportBody({ profiles }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId: string = created.body.data.report.id;
    const profileId: string = created.body.data.profiles.rows[0].profile_id;
    let round = 0;
    const scanAgain = async () => {
      // A later run: its items are the person's latest.
      clock.advance(60_000);
      await removeFromReport(t, reportId, profileId);
      const restored = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
        key: owner.secret,
        headers: { 'idempotency-key': `activity-gaps-later-${++round}` },
        body: { profiles },
      });
      assert.equal(restored.status, 201, restored.text);
    };
    const gapCodes = async () => {
      const summary = (await get(`/api/v1/reports/${reportId}/analysis`)).data;
      return { codes: summary.limitations.map((l: { code: string }) => l.code).filter((c: string) => GAP_CODES.includes(c)), summary };
    };

    // First: a positively empty activity.
    planned.activity = { events: [] };
    await processAll();
    assert.equal((await activityOutcomes(reportId)).get('ada-lane')!['activity.posted_recently'], 'optimize');
    assert.deepEqual((await gapCodes()).codes, []);
    const coverage = () => t.runtime.db.selectFrom('activity_coverage').select(['item_id', 'event_count']).where('profile_id', '=', profileId).execute();
    const observedBy = await coverage();

    // Then an attempt whose collection failed: the earlier observation stands, and the summary says the latest failed.
    planned.activity = { gap: 'failed' };
    await scanAgain();
    await processAll();
    assert.deepEqual(await coverage(), observedBy, 'the failed attempt stored no observation');
    assert.equal((await activityOutcomes(reportId)).get('ada-lane')!['activity.posted_recently'], 'optimize', 'answered from the earlier observation');
    const failed = await gapCodes();
    assert.deepEqual(failed.codes, ['activity_collection_failed']);
    assert.equal(failed.summary.coverage.activity.observed_person_profiles, 1);
    assert.equal(failed.summary.freshness.state, 'stale', 'the activity shown is not from the latest attempt');
    assert.ok(failed.summary.freshness.reasons.includes('activity_collection_failed'));
    await assertTotalsMatchRebuild(t, reportId);

    // Then an attempt that observes posts: the gap is gone.
    planned.activity = undefined;
    await scanAgain();
    await processAll();
    const observed = await gapCodes();
    assert.deepEqual(observed.codes, []);
    assert.deepEqual(observed.summary.freshness.reasons, []);
    assert.equal((await activityOutcomes(reportId)).get('ada-lane')!['activity.posted_recently'], 'good');
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('a person never observed stays unknown through every later gap; the latest gap is the one said', async () => {
    const planned = new PlannedActivity();
    const processAll = async () => {
      await scanQueued(t, handlerContext(t, planned));
      await foldsSettled(t);
    };
    const profiles = [{ pronet_url: 'https://pronet.example/in/bo-reed' }];
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'activity-gaps-never' },
      body: reportBody({ profiles }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId: string = created.body.data.report.id;
    const profileId: string = created.body.data.profiles.rows[0].profile_id;
    planned.activity = { gap: 'unattributable' };
    await processAll();
    clock.advance(60_000);
    await removeFromReport(t, reportId, profileId);
    const restored = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: owner.secret,
      headers: { 'idempotency-key': 'activity-gaps-never-again' },
      body: { profiles },
    });
    assert.equal(restored.status, 201, restored.text);
    planned.activity = { gap: 'not_delivered' };
    await processAll();
    assert.deepEqual((await activityOutcomes(reportId)).get('bo-reed'), Object.fromEntries(ACTIVITY_KEYS.map((k) => [k, 'unknown'])));
    const summary = (await get(`/api/v1/reports/${reportId}/analysis`)).data;
    const codes = summary.limitations.map((l: { code: string }) => l.code);
    assert.ok(codes.includes('activity_not_delivered'));
    assert.ok(!codes.includes('activity_unattributable'), 'an earlier gap is not said once a later attempt ended');
    assert.equal(summary.coverage.activity.observed_person_profiles, 0);
    const events = (await get(`/api/v1/reports/${reportId}/analysis/activity?limit=100&profile_id=${profileId}`)).data;
    assert.deepEqual(events, []);
    await assertTotalsMatchRebuild(t, reportId);
  });
});
