/**
 * Erasing a person (use-cases/personal-data.ts, erasePerson), on a real
 * server, database and S3-protocol media store, while the person's items
 * are finished (with evidence), running (a worker holds one) and queued:
 *
 * - a walk over the database catalog finds no row that still names them (URL,
 *   supplied name, observed name, imported column, the company page's events
 *   with them as actor), and the bucket holds none
 *   of their blobs, but keeps a blob another person's evidence shares;
 * - nothing of anyone else changes: the other person's rows, and the same
 *   URL in another workspace;
 * - the running item's finish stores nothing and fails no one; the queued
 *   run settles with the counts it had;
 * - reads never show them again, and a later import of the URL adds them
 *   afresh (not restored);
 * - a stored idempotent response that named them replays with a tombstone;
 * - an import racing the erasure either sees them erased or not at all;
 * - a member may not erase.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { ERASED_PROFILE_URL } from '../../src/domain/erasure.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import type { Collector, CollectRequest } from '../../src/scanning/collectors/collector.js';
import { processItem, type HandlerContext } from '../../src/scanning/item-handler.js';
import { S3MediaStore } from '../../src/scanning/media/s3-media-store.js';
// One item is held mid-collection by hand, so a person is erased while a worker holds their item.
import { claimItem } from '../../src/queue/claim.js';
import { drainBlobDeletions } from '../../src/store/maintenance-repository.js';
import { erasePerson, type PersonalDataDeps } from '../../src/use-cases/personal-data.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { findInCatalog } from '../support/catalog.js';
import { foldsSettled } from '../support/rollups.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { scanQueued } from '../support/handler.js';

const JANE = 'https://pronet.example/in/zora-vantablack-erasable';
const JOHN = 'https://pronet.example/in/kept-colleague';

/** The simulator, held at the gate for one URL's first collect until released. */
class GatedCollector implements Collector {
  readonly name = 'simulator';
  readonly #inner = new SimulatorCollector({ delayMs: 0 });
  #release!: () => void;
  readonly gate = new Promise<void>((resolve) => (this.#release = resolve));
  #reached!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.#reached = resolve));
  #held = false;
  constructor(private readonly url: string) {}
  release(): void {
    this.#release();
  }
  async collect(request: CollectRequest) {
    if (request.url === this.url && !this.#held) {
      this.#held = true;
      this.#reached();
      await this.gate;
    }
    return this.#inner.collect(request);
  }
}

describe('erasing a person', () => {
  let s3: TestS3;
  let t: TestApp;
  let owner: Tenant;
  let other: Tenant;
  let media: S3MediaStore;
  let deps: PersonalDataDeps;
  const ctx = (collector: Collector): HandlerContext => ({
    db: t.runtime.db,
    clock: t.clock,
    media,
    collectorFor: () => collector,
    timeoutMs: 10_000,
    maxAttempts: 1,
    log: () => {},
  });

  async function createReport(tenant: Tenant, profiles: unknown[]): Promise<string> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles }),
    });
    assert.equal(created.status, 201, created.text);
    return created.body.data.report.id;
  }

  async function processAll(collector: Collector = new SimulatorCollector({ delayMs: 0 })): Promise<void> {
    await scanQueued(t, ctx(collector), ['succeeded', 'skipped']);
    await foldsSettled(t);
  }

  before(async () => {
    s3 = await startS3();
    t = await startTestApp({ env: { ...s3.env, S3_PREFIX: 'media/' } });
    const settings = t.config.media;
    assert.equal(settings.kind, 's3');
    media = new S3MediaStore(settings);
    deps = { db: t.runtime.db, media, clock: t.clock };
    owner = await t.tenant({ name: 'Erasing workspace' });
    other = await t.tenant({ name: 'Other workspace' });
  });
  after(async () => {
    await t?.close();
    await s3?.close();
  });

  test('nothing of the person is left in the database or the bucket, and nothing of anyone else changes', async () => {
    // Finished items with evidence, in this workspace and (the same URL) in another one.
    const finished = await createReport(owner, [
      { pronet_url: JANE, name: 'Zora Q. Erasable' },
      { pronet_url: JOHN, name: 'Kept Colleague' },
    ]);
    const foreign = await createReport(other, [{ pronet_url: JANE, name: 'Other Workspace Zora' }]);
    // A stored idempotent response naming her: a report created with her among its people.
    await processAll();
    const jane = await t.runtime.db
      .selectFrom('report_profiles')
      .selectAll()
      .where('report_id', '=', finished)
      .where('pronet_url', '=', JANE)
      .executeTakeFirstOrThrow();
    const john = await t.runtime.db
      .selectFrom('report_profiles')
      .selectAll()
      .where('report_id', '=', finished)
      .where('pronet_url', '=', JOHN)
      .executeTakeFirstOrThrow();
    await t.runtime.db
      .updateTable('report_profiles')
      .set({ imported_columns: JSON.stringify({ department: 'Erasure-Dept-7731' }) })
      .where('id', '=', jane.id)
      .execute();
    const analysis = await t.runtime.db.selectFrom('profile_analyses').select('profile_data').where('profile_id', '=', jane.id).executeTakeFirstOrThrow();
    const observedName = analysis.profile_data.name;
    assert.ok(observedName && observedName.length >= 6, `observed name ${observedName}`);
    const johnAnalysis = await t.runtime.db.selectFrom('profile_analyses').select('profile_data').where('profile_id', '=', john.id).executeTakeFirstOrThrow();
    assert.ok(!String(johnAnalysis.profile_data.name).toLowerCase().includes(observedName.toLowerCase()));
    // A blob of her own, and one her evidence shares with John's (content addressing): the first goes, the second stays.
    const johnEvidence = await t.runtime.db.selectFrom('evidence_images').selectAll().where('profile_id', '=', john.id).executeTakeFirstOrThrow();
    const own = (await media.put(randomBytes(1024))).sha256;
    const shared = (await media.put(randomBytes(1024))).sha256;
    const evidenceOf = (profileId: string, sha256: string, section: string) => ({
      ...johnEvidence,
      id: randomUUID(),
      profile_id: profileId,
      section,
      original_sha256: sha256,
      preview_sha256: sha256,
    });
    await t.runtime.db
      .insertInto('evidence_images')
      .values([evidenceOf(jane.id, own, 'extra_own'), evidenceOf(jane.id, shared, 'extra_shared'), evidenceOf(john.id, shared, 'extra_john')])
      .execute();
    const janeEvidence = await t.runtime.db.selectFrom('evidence_images').selectAll().where('profile_id', '=', jane.id).execute();
    assert.ok(janeEvidence.length > 2, 'her evidence');
    // The company page shows a post of hers and one of John's: events whose actor is a person (a URL variant of hers).
    const companyEvent = await t.runtime.db.selectFrom('activity_events').selectAll().where('report_id', '=', finished).limit(1).executeTakeFirstOrThrow();
    const eventBy = (url: string, name: string) => {
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { subject, ...row } = companyEvent as typeof companyEvent & { subject?: string };
      return {
        ...row,
        id: randomUUID(),
        profile_id: null,
        external_id: `company-shows-${randomUUID()}`,
        actor_kind: 'person' as const,
        actor: JSON.stringify({ kind: 'person', url, name }),
        counts: JSON.stringify(companyEvent.counts),
        text: `A post by ${name}`,
      };
    };
    await t.runtime.db
      .insertInto('activity_events')
      .values([eventBy('https://www.pronet.example/in/Zora-Vantablack-Erasable/', 'Zora Q. Erasable'), eventBy(JOHN, 'Kept Colleague')])
      .execute();
    // The provider's snapshot identities name her URL.
    await t.runtime.db
      .insertInto('brightdata_snapshots')
      .values({ snapshot_id: `s-${randomUUID()}`, provider: 'brightdata', dataset_id: 'gd_x', grp: 'profiles', url_keys: [JANE, JOHN], reserved_day: null })
      .execute();

    // A running item: a worker holds her item of a second report at the collector.
    const running = await createReport(owner, [{ pronet_url: JANE }]);
    const gated = new GatedCollector(JANE);
    let held: Promise<unknown> | null = null;
    for (let claim = await claimItem(t.runtime.db, 30); claim && held === null; claim = held === null ? await claimItem(t.runtime.db, 30) : null) {
      const item = await t.runtime.db.selectFrom('scan_items').select(['profile_id', 'report_id']).where('id', '=', claim.itemId).executeTakeFirstOrThrow();
      if (item.report_id === running && item.profile_id !== null) {
        held = processItem(ctx(gated), claim);
        await gated.reached;
      } else await processItem(ctx(new SimulatorCollector({ delayMs: 0 })), claim);
    }
    assert.ok(held, 'a running item of hers');
    // Queued items: a third report's scans, not yet claimed.
    const queued = await createReport(owner, [{ pronet_url: JANE }, { pronet_url: JOHN }]);
    const queuedRunsBefore = await t.runtime.db.selectFrom('scan_runs').select(['id', 'requested']).where('report_id', '=', queued).orderBy('id').execute();

    const johnBefore = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['id', 'original_sha256'])
      .where('profile_id', '=', john.id)
      .orderBy('id')
      .execute();
    const johnAnalysisBefore = await t.runtime.db.selectFrom('profile_analyses').selectAll().where('profile_id', '=', john.id).executeTakeFirstOrThrow();
    const foreignBefore = await t.runtime.db.selectFrom('report_profiles').selectAll().where('report_id', '=', foreign).execute();

    const result = await erasePerson(deps, { kind: 'user', userId: owner.userId, role: 'owner' }, owner.workspaceId, {
      url: 'http://www.PRONET.example/in/zora-vantablack-erasable/',
    });
    assert.equal(result.erased, 3, 'one attachment per report');

    // The held worker finishes: nothing is stored, no error.
    gated.release();
    assert.equal(await held, 'skipped');
    // The rest of the queue (John's queued items, the company pages) finishes; the runs settle.
    await processAll();
    const queuedRunsAfter = await t.runtime.db
      .selectFrom('scan_runs')
      .select(['id', 'requested', 'status', 'unfinished'])
      .where('report_id', '=', queued)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      queuedRunsAfter.map((r) => r.requested),
      queuedRunsBefore.map((r) => r.requested),
      'a run keeps its counts',
    );
    for (const run of queuedRunsAfter) {
      assert.equal(run.unfinished, 0);
      assert.ok(['completed', 'partial', 'cancelled', 'failed'].includes(run.status), run.status);
    }
    // Blobs the held item stored, and hers, are gone once maintenance drained the queue (the erasure drained it already).
    await drainBlobDeletions(t.runtime.db, t.clock.now(), (h) => media.delete(h));
    assert.equal((await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute()).length, 0);

    // The company page's event by John stays; hers went with her (the catalog walk below finds none).
    const companyEvents = await t.runtime.db
      .selectFrom('activity_events')
      .select('actor')
      .where('report_id', '=', finished)
      .where('profile_id', 'is', null)
      .execute();
    assert.ok(
      companyEvents.some((e) => JSON.stringify(e.actor).includes('kept-colleague')),
      'the event by John',
    );
    // The catalog walk: nothing names her, outside the other workspace's own rows.
    const foreignIds = [other.workspaceId, foreign, ...foreignBefore.map((p) => p.id)];
    const hits = (await findInCatalog(t.runtime.db, [JANE, 'zora-vantablack-erasable', 'Zora Q. Erasable', observedName, 'Erasure-Dept-7731'])).filter(
      (h) => !foreignIds.some((id) => h.row.includes(id)),
    );
    assert.deepEqual(
      hits.map((h) => `${h.table}: ${h.needle}`),
      [],
    );
    // No blob of hers is left in the bucket but the one John's evidence shares (and those of the same person's
    // evidence in the other workspace, which the simulator renders alike).
    const hashes = [...new Set(janeEvidence.flatMap((e) => [e.original_sha256, e.preview_sha256]))];
    const stillThere = [];
    for (const h of hashes) if ((await media.get(h)) !== null) stillThere.push(h);
    const foreignHashes = new Set(
      (await t.runtime.db.selectFrom('evidence_images').select(['original_sha256', 'preview_sha256']).where('report_id', '=', foreign).execute()).flatMap(
        (e) => [e.original_sha256, e.preview_sha256],
      ),
    );
    assert.deepEqual(
      stillThere.filter((h) => !foreignHashes.has(h)),
      [shared],
    );

    assert.equal(await media.get(own), null);
    // Nothing of anyone else changed.
    assert.deepEqual(
      await t.runtime.db.selectFrom('evidence_images').select(['id', 'original_sha256']).where('profile_id', '=', john.id).orderBy('id').execute(),
      johnBefore,
    );
    assert.deepEqual(
      await t.runtime.db.selectFrom('profile_analyses').selectAll().where('profile_id', '=', john.id).executeTakeFirstOrThrow(),
      johnAnalysisBefore,
    );
    for (const e of johnBefore) assert.notEqual(await media.get(e.original_sha256), null);
    assert.deepEqual(await t.runtime.db.selectFrom('report_profiles').selectAll().where('report_id', '=', foreign).execute(), foreignBefore);
    const snapshot = await t.runtime.db.selectFrom('brightdata_snapshots').select('url_keys').executeTakeFirstOrThrow();
    assert.deepEqual(snapshot.url_keys, [JOHN]);

    // Reads never show her; a later import adds her afresh.
    const listed = await t.request('GET', `/api/v1/reports/${finished}/profiles`, { key: owner.secret });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.data.map((p: { pronet_url: string }) => p.pronet_url),
      [JOHN],
    );
    const again = await t.request('POST', `/api/v1/reports/${finished}/profile-imports`, {
      key: owner.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: { profiles: [{ pronet_url: JANE }] },
    });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.rows[0].status, 'added');
    assert.notEqual(again.body.data.rows[0].profile_id, jane.id);
    const fresh = await t.runtime.db.selectFrom('report_profiles').selectAll().where('id', '=', again.body.data.rows[0].profile_id).executeTakeFirstOrThrow();
    assert.equal(fresh.name, null);
    assert.deepEqual(fresh.imported_columns, {});
  });

  test("the receipt of an import that added the person still replays, and a stored response's profile record is tombstoned", async () => {
    const url = 'https://pronet.example/in/replayed-erasure';
    const reportId = await createReport(owner, []);
    const key = randomUUID();
    const body = { profiles: [{ pronet_url: url, name: 'Replayed Person' }] };
    const imported = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, { key: owner.secret, headers: { 'idempotency-key': key }, body });
    assert.equal(imported.status, 201, imported.text);
    const profileId = imported.body.data.rows[0].profile_id as string;
    // A stored response holding a profile record (as a write answering with the person would store it).
    await t.runtime.db
      .insertInto('idempotency_records')
      .values({
        workspace_id: owner.workspaceId,
        operation: 'test_profile_write',
        scope: reportId,
        key: randomUUID(),
        fingerprint: 'f',
        status_code: 201,
        response: JSON.stringify({ data: { id: profileId, pronet_url: url, name: 'Replayed Person', title: 'Chief', headline: null, source: 'import' } }),
        created_at: t.clock.now(),
        expires_at: new Date(t.clock.now().getTime() + 86_400_000),
      })
      .execute();
    await erasePerson(deps, { kind: 'operator' }, owner.workspaceId, { url });
    const replay = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, { key: owner.secret, headers: { 'idempotency-key': key }, body });
    assert.equal(replay.status, 201, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data.counts, imported.body.data.counts, 'the receipt keeps its counts');
    const stored = await t.runtime.db
      .selectFrom('idempotency_records')
      .select('response')
      .where('operation', '=', 'test_profile_write')
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored.response, { data: { id: profileId, pronet_url: ERASED_PROFILE_URL, name: null, title: null, headline: null, source: 'import' } });
  });

  test('an import racing the erasure of the same URL sees the person erased or not at all', async () => {
    const url = 'https://pronet.example/in/racing-erasure';
    for (let round = 0; round < 5; round++) {
      const reportId = await createReport(owner, [{ pronet_url: url, name: 'Racing Person' }]);
      await t.runtime.db.updateTable('report_profiles').set({ status: 'removed', removed_at: t.clock.now() }).where('report_id', '=', reportId).execute();
      const [imported] = await Promise.all([
        t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
          key: owner.secret,
          headers: { 'idempotency-key': randomUUID() },
          body: { profiles: [{ pronet_url: url }] },
        }),
        erasePerson(deps, { kind: 'operator' }, owner.workspaceId, { url }).catch(() => null),
      ]);
      assert.equal(imported.status, 201, imported.text);
      const rows = await t.runtime.db.selectFrom('report_profiles').selectAll().where('report_id', '=', reportId).execute();
      if (imported.body.data.rows[0].status === 'restored') {
        // The import came first: the erasure then took the restored person too.
        assert.equal(rows.length, 0);
      } else {
        // The erasure came first: the import added them afresh, with nothing of before.
        assert.equal(imported.body.data.rows[0].status, 'added');
        assert.equal(rows.length, 1);
        assert.equal(rows[0].name, null);
      }
      await erasePerson(deps, { kind: 'operator' }, owner.workspaceId, { url }).catch(() => null);
    }
  });

  test('a member may not erase a person, and an unknown person is not found', async () => {
    await createReport(owner, [{ pronet_url: 'https://pronet.example/in/member-cannot' }]);
    await assert.rejects(
      erasePerson(deps, { kind: 'user', userId: owner.userId, role: 'member' }, owner.workspaceId, { url: 'https://pronet.example/in/member-cannot' }),
      { status: 403 },
    );
    assert.equal(
      (await t.runtime.db.selectFrom('report_profiles').select('id').where('pronet_url', '=', 'https://pronet.example/in/member-cannot').execute()).length,
      1,
    );
    await assert.rejects(erasePerson(deps, { kind: 'operator' }, owner.workspaceId, { url: 'https://pronet.example/in/nobody-here' }), { status: 404 });
    await assert.rejects(erasePerson(deps, { kind: 'operator' }, owner.workspaceId, { url: 'not a url' }), { status: 422 });
  });
});
