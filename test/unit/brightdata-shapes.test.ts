/**
 * Every documented shape of Bright Data's answers reaches the right person,
 * against the local server (test/support/fake-brightdata.ts) over real HTTP:
 * discovered posts named by `discovery_input`, by the input echo or only by
 * their author; records that name nobody asked for; the interim "not ready"
 * answer under 200 and 202, also after progress said ready; a server that
 * takes only each endpoint's documented body and one that takes both. In
 * activity mode, `activity: []` only for the provider's "No public posts"
 * row; anything else not observed is null with its `activity_gap`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { parseBrightDataSettings, type BrightDataSettings } from '../../src/config.js';
import type { CollectResult } from '../../src/domain/collected.js';
import { BrightDataCollector } from '../../src/scanning/collectors/brightdata/index.js';
import { isInterimAnswer, refusalMessage } from '../../src/scanning/collectors/brightdata/client.js';
import type { CollectRequest } from '../../src/scanning/collectors/collector.js';
import { startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';

const KEY = 'bd-shapes-key-0123';
const person = (slug: string, mode: CollectRequest['mode'] = 'activity'): CollectRequest => ({
  kind: 'person',
  mode,
  url: `https://www.linkedin.com/in/${slug}/`,
  attempt: 1,
  signal: AbortSignal.timeout(30_000),
});
const ok = (result: CollectResult) => {
  assert.equal(result.outcome, 'ok');
  if (result.outcome !== 'ok') throw new Error('not ok');
  return result;
};

for (const bodies of ['reference', 'both'] as const) {
  describe(`Bright Data answer shapes (a server that takes ${bodies === 'reference' ? "only each endpoint's documented body" : 'both body forms'})`, () => {
    let fake: FakeBrightData;
    let settings: BrightDataSettings;
    const logged: string[] = [];

    before(async () => {
      fake = await startFakeBrightData({ apiKey: KEY, bodies });
    });
    after(async () => fake.close());
    beforeEach(() => {
      fake.calls.length = 0;
      fake.postsShape = 'echo';
      fake.interimStatus = null;
      fake.buildingAfterReady = 0;
      fake.slowSync = false;
      logged.length = 0;
      settings = parseBrightDataSettings({
        COLLECTOR: 'brightdata',
        BRIGHTDATA_API_KEY: KEY,
        BRIGHTDATA_BASE_URL: fake.url,
        BRIGHTDATA_BATCH_WINDOW_MS: '100',
        BRIGHTDATA_POLL_INTERVAL_MS: '20',
        BRIGHTDATA_POSTS_PER_PERSON: '3',
      })!;
    });
    const collector = () => new BrightDataCollector({ settings, log: (m) => logged.push(m) });

    for (const shape of ['echo', 'discovery', 'author'] as const) {
      test(`discovered posts reach their person when ${shape === 'echo' ? 'the input echo' : shape === 'discovery' ? 'discovery_input' : 'only the author id'} names them`, async () => {
        fake.postsShape = shape;
        const c = collector();
        const [ada, alan] = await Promise.all([c.collect(person('ada-lovelace')), c.collect(person('alan-turing'))]);
        for (const [result, slug] of [
          [ada, 'ada-lovelace'],
          [alan, 'alan-turing'],
        ] as const) {
          const events = ok(result).activity;
          assert.ok(events && events.length > 0, `${slug}: ${JSON.stringify(result)}`);
          for (const e of events) assert.ok(e.source_url?.includes(slug), e.source_url ?? '');
          assert.equal(ok(result).billed_records, events.length);
        }
        const trigger = fake.calls.find((call) => call.path === '/datasets/v3/trigger');
        assert.equal(trigger?.query.limit_per_input, '3');
      });
    }

    test('records that name nobody asked for are counted and logged, never attributed: the activity is unknown (unattributable)', async () => {
      fake.postsShape = 'stranger';
      const result = ok(await collector().collect(person('grace-hopper')));
      assert.equal(result.activity, null);
      assert.equal(result.activity_gap, 'unattributable');
      assert.equal(logged.filter((l) => /named no input/.test(l)).length, 1);
      assert.ok(!logged.some((l) => l.includes('grace') || l.includes('linkedin.com')), logged.join('\n'));
    });

    test('"No public posts were found" is an observed absence: activity []', async () => {
      fake.postsShape = 'discovery';
      const result = ok(await collector().collect(person('quiet-emmy-noether')));
      assert.deepEqual(result.activity, []);
      assert.equal(result.activity_gap, undefined);
    });

    test('a person the provider delivered nothing for is unknown (not_delivered), never "no posts"', async () => {
      const result = ok(await collector().collect(person('missing-person')));
      assert.equal(result.activity, null);
      assert.equal(result.activity_gap, 'not_delivered');
    });

    test('a failed error row for a person is unknown (failed), never "no posts"', async () => {
      const result = ok(await collector().collect(person('crawlfail-person')));
      assert.equal(result.activity, null);
      assert.equal(result.activity_gap, 'failed');
    });

    for (const status of [200, 202] as const) {
      test(`a download answered "not ready" under ${status} is waited for, never taken for data`, async () => {
        fake.interimStatus = status;
        const c = collector();
        const result = ok(await c.collect(person('ada-lovelace')));
        assert.ok(result.activity && result.activity.length > 0);
        const downloads = fake.calls.filter((call) => call.path.startsWith('/datasets/v3/snapshot/'));
        assert.ok(downloads.length >= 1);
        assert.equal(fake.calls.filter((call) => call.method === 'POST').length, 1, 'bought once');
      });

      test(`a synchronous call that turns into a snapshot under ${status} is finished, each profile bought once`, async () => {
        fake.slowSync = true;
        fake.interimStatus = status;
        const result = ok(await collector().collect(person('ada-lovelace', 'full_profile')));
        assert.equal(result.profile?.name, 'Ada Lovelace');
        assert.equal(fake.calls.filter((call) => call.method === 'POST').length, 1);
      });
    }

    test('"building" after progress said ready is polled again; the records come once they are there', async () => {
      fake.buildingAfterReady = 2;
      fake.interimStatus = 200;
      const result = ok(await collector().collect(person('ada-lovelace')));
      assert.ok(result.activity && result.activity.length > 0);
      assert.ok(fake.calls.filter((call) => call.path.startsWith('/datasets/v3/snapshot/')).length >= 3);
    });

    test('a profile batch larger than 20 goes through /trigger with its documented bare array', async () => {
      const c = collector();
      const s = { ...settings, batchMax: 25 };
      const big = new BrightDataCollector({ settings: s });
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => big.collect(person(`member-${i}`, 'full_profile'))));
      for (const r of results) assert.equal(ok(r).profile !== null, true);
      assert.deepEqual(
        fake.calls.filter((call) => call.method === 'POST').map((call) => call.path),
        ['/datasets/v3/trigger'],
      );
      assert.ok(c);
    });
  });
}

describe('Bright Data answers, by shape', () => {
  test('an interim answer is an object with status or message and no record fields, whatever its status code', () => {
    assert.equal(isInterimAnswer({ status: 'running', message: 'Snapshot is not ready yet, try again in 10s' }), true);
    assert.equal(isInterimAnswer({ status: 'building', message: 'Snapshot is building' }), true);
    assert.equal(isInterimAnswer({ snapshot_id: 's_1', message: 'still in progress' }), true);
    assert.equal(isInterimAnswer({ status: 'ok', input: { url: 'https://x.example/in/a' }, name: 'A' }), false);
    assert.equal(isInterimAnswer([{ status: 'running' }]), false);
    assert.equal(isInterimAnswer({ name: 'A record without a status' }), false);
  });

  test("a 400's message is logged without URLs", () => {
    const message = refusalMessage({ error: 'Invalid input https://www.linkedin.com/in/jane-doe: must be an array' });
    assert.equal(message.includes('jane'), false);
    assert.match(message, /Invalid input <url>/);
  });
});
