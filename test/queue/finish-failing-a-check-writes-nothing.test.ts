/**
 * The statement that ends a person's item writes either everything or
 * nothing (queue/finish.ts, endPersonItem): its gate reads whether the claim
 * still holds the item, whether the person is as the finish read them, and
 * whether no media collection ran since the item stored its blobs, and each
 * of its writes (the item's end, the attachment's bump, evidence, events,
 * coverage, analysis, history, billed records, contribution and roll-up
 * delta) is conditional on it. Each test fails one check and looks in every
 * table those writes touch.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { CollectedProfile } from '../../src/domain/collected.js';
import { analysisChange } from '../../src/domain/profile-analysis.js';
// The finish's read, its writes and its end statement, called by hand to fail a check between them.
import { activityWrites, analysisWrites, evidenceWrites, readFinishFacts } from '../../src/store/analysis-repository.js';
import { beginItem } from '../../src/queue/begin.js';
import { claimItem } from '../../src/queue/claim.js';
import { endPersonItem, type PersonItemEnd } from '../../src/queue/finish.js';
import { type BegunItem } from '../../src/queue/item.js';
import { historyScan, historyWrite } from '../../src/store/history-repository.js';
import { lockAttachments } from '../../src/store/locks.js';
import { MediaCollected, mediaGeneration } from '../../src/store/maintenance-repository.js';
import { gateHolds } from '../../src/store/one-statement.js';
import { providerUsageWrite } from '../../src/store/provider-usage-repository.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { foldsSettled } from '../support/rollups.js';

describe("a person's finish that fails one of its checks", () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  /** A report of one person, its items claimed and begun; the person's full-profile item. */
  async function begunItem(key: string): Promise<BegunItem> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': key },
      body: reportBody({ profiles: people(1, key) }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const reportId: string = created.body.data.report.id;
    const now = new Date();
    let found: BegunItem | undefined;
    for (let claim = await claimItem(t.runtime.db, 30, undefined, { now, maxAttempts: 3 }); claim;) {
      if (!claim.begun) assert.ok(await beginItem(t.runtime.db, claim, now));
      const begun = claim.begun;
      if (begun && begun.report_id === reportId && begun.profile_id !== null && begun.mode === 'full_profile') found = begun;
      claim = await claimItem(t.runtime.db, 30, undefined, { now, maxAttempts: 3 });
    }
    assert.ok(found);
    await foldsSettled(t);
    return found;
  }

  /** What the finish hands to its statement, from a read now: a write into every table a succeeded item's finish writes. */
  async function endOf(item: BegunItem, provider: string, generation?: number): Promise<PersonItemEnd> {
    const db = t.runtime.db;
    const profileId = item.profile_id!;
    const read = await readFinishFacts(db, {
      reportId: item.report_id,
      profileId,
      observedEventIds: [],
      ended: { id: item.id, status: 'succeeded', warning: false },
    });
    assert.ok(read.factsVersion !== null);
    const now = new Date();
    const ids = { reportId: item.report_id, profileId, itemId: item.id };
    const round = { round: ids.itemId, previous: null, latest: true };
    const image = { sha256: randomUUID().replaceAll('-', '').repeat(2), size: 10, media_type: 'image/webp' as const, width: 1, height: 1 };
    const evidence = evidenceWrites(
      db,
      { ...ids, images: [{ section: 'about', origin: 'rendered', prepared: { original: image, preview: image } }] },
      now,
      gateHolds,
    );
    const event = {
      external_id: `${provider}-event`,
      event_type: 'post' as const,
      actor: { kind: 'person' as const, url: 'https://pronet.example/in/x', name: null },
      source_url: null,
      text: 'hello',
      occurred_at: now.toISOString(),
      counts: { reactions: null, comments: null, reposts: null },
    };
    const events = activityWrites(db, { ...ids, events: [event], capturedAt: now }, now, new Map(), gateHolds);
    const analysis = { catalog_version: 'test', findings: [], good: 0, optimize: 0, unknown: 0, captured_at: now, revision: `${provider}-revision` };
    const change = analysisChange(item.report_id, undefined, analysis, now);
    assert.equal(change.kind, 'analysis');
    return {
      factsVersion: read.factsVersion,
      person: read.person,
      writes: [
        ...evidence.writes,
        ...events.writes,
        ...analysisWrites(db, { ...ids, profile: {} as CollectedProfile }, analysis, change, gateHolds),
        historyWrite(db, { ...ids, round }, historyScan(round, analysis), analysis, now, gateHolds),
        providerUsageWrite({ workspaceId: item.workspace_id, provider, records: 1 }, gateHolds),
      ],
      analysisAvailable: true,
      mediaGeneration: generation,
    };
  }

  /** Every row the finish of `item` could have written, and the rows it changes. */
  async function written(item: BegunItem, provider: string) {
    const db = t.runtime.db;
    const profileId = item.profile_id!;
    const count = async (query: Promise<unknown[]>) => (await query).length;
    return {
      item: await db.selectFrom('scan_items').select(['status', 'claim_id', 'finished_at']).where('id', '=', item.id).executeTakeFirstOrThrow(),
      attachment: await db.selectFrom('report_profiles').select(['analysis_available']).where('id', '=', profileId).executeTakeFirstOrThrow(),
      evidence: await count(db.selectFrom('evidence_images').select('id').where('item_id', '=', item.id).execute()),
      events: await count(db.selectFrom('activity_events').select('id').where('profile_id', '=', profileId).execute()),
      coverage: await count(db.selectFrom('activity_coverage').select('profile_id').where('profile_id', '=', profileId).execute()),
      analysis: await count(db.selectFrom('profile_analyses').select('profile_id').where('profile_id', '=', profileId).execute()),
      history: await count(db.selectFrom('person_scan_history').select('item_id').where('item_id', '=', item.id).execute()),
      contribution:
        (await db.selectFrom('profile_contributions').select('contribution').where('profile_id', '=', profileId).executeTakeFirst())?.contribution ?? null,
      deltas: await count(db.selectFrom('rollup_deltas').select('id').where('report_id', '=', item.report_id).execute()),
      usage: await count(db.selectFrom('provider_usage').select('records').where('provider', '=', provider).execute()),
    };
  }

  const succeeded = { status: 'succeeded' as const, warning: false, reason: null, activity_gap: null };

  test('a lost claim: the statement says lost and writes nothing of the item', async () => {
    const item = await begunItem('gate-lost');
    const given = await endOf(item, 'gate-lost');
    const before = await written(item, 'gate-lost');
    const other = { ...item, claim_id: randomUUID() };
    assert.equal(await endPersonItem(t.runtime.db, other, succeeded, new Date(), given), 'lost');
    assert.deepEqual(await written(item, 'gate-lost'), before);
    assert.equal(before.item.status, 'running');
    assert.equal(before.evidence + before.events + before.coverage + before.analysis + before.history + before.deltas + before.usage, 0);
  });

  test('a person changed since the read: the statement says stale and writes nothing of the item', async () => {
    const item = await begunItem('gate-stale');
    const given = await endOf(item, 'gate-stale');
    // A holder of the attachment commits a change of the person: its version moves on.
    await t.runtime.db.transaction().execute((trx) => lockAttachments(trx, [item.profile_id!]));
    const before = await written(item, 'gate-stale');
    assert.equal(await endPersonItem(t.runtime.db, item, succeeded, new Date(), given), 'stale');
    assert.deepEqual(await written(item, 'gate-stale'), before);
    assert.equal(before.item.status, 'running');
    assert.equal(before.evidence + before.events + before.coverage + before.analysis + before.history + before.deltas + before.usage, 0);
  });

  test('a media collection since the item stored its blobs: the finish throws MediaCollected and writes nothing of the item', async () => {
    const item = await begunItem('gate-media');
    const given = await endOf(item, 'gate-media', await mediaGeneration(t.runtime.db));
    await sql`update maintenance_state set media_gc_generation = media_gc_generation + 1`.execute(t.runtime.db);
    const before = await written(item, 'gate-media');
    await assert.rejects(endPersonItem(t.runtime.db, item, succeeded, new Date(), given), MediaCollected);
    assert.deepEqual(await written(item, 'gate-media'), before);
    assert.equal(before.item.status, 'running');
    assert.equal(before.evidence + before.events + before.coverage + before.analysis + before.history + before.deltas + before.usage, 0);
  });

  test('every check holding: the same statement writes into every one of those tables', async () => {
    const item = await begunItem('gate-ok');
    const given = await endOf(item, 'gate-ok', await mediaGeneration(t.runtime.db));
    assert.equal(await endPersonItem(t.runtime.db, item, succeeded, new Date(), given), 'ended');
    const after = await written(item, 'gate-ok');
    assert.equal(after.item.status, 'succeeded');
    assert.equal(after.item.claim_id, null);
    assert.equal(after.attachment.analysis_available, true);
    assert.deepEqual(
      { evidence: after.evidence, events: after.events, coverage: after.coverage, analysis: after.analysis, history: after.history, usage: after.usage },
      { evidence: 1, events: 1, coverage: 1, analysis: 1, history: 1, usage: 1 },
    );
  });
});
