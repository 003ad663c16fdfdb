/**
 * A person's item reads what is stored of the person once, before its own
 * writes, and decides the analysis from those rows with its writes applied
 * (store/analysis-repository.ts, finishFacts): a section's newer images make
 * the older ones of other items obsolete, events are upserted by external
 * id, an observed activity is covered. The stored analysis must then be
 * exactly what the stored rows evaluate to, read afresh, after a first scan
 * and after a second one that replaces evidence and updates events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { analyzeProfile } from '../../src/domain/profile-analysis.js';
// The finish's decision, compared with what the stored rows evaluate to when read afresh.
import { finishFacts } from '../../src/domain/finish-facts.js';
import { readFinishFacts } from '../../src/store/analysis-repository.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { scanQueued } from '../support/handler.js';
import { removeFromReport } from '../support/operator.js';
import { assertTotalsMatchRebuild } from '../support/rollups.js';

describe("a person's finish: facts read before its writes", () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  async function processAll(): Promise<void> {
    await scanQueued(t);
  }

  /** The person's analysis evaluated from their stored rows now (no item's writes to add). */
  async function evaluatedFromRows(reportId: string, profileId: string) {
    const report = await t.runtime.db.selectFrom('reports').select(['company_name', 'root_domain']).where('id', '=', reportId).executeTakeFirstOrThrow();
    const read = await readFinishFacts(t.runtime.db, { reportId, profileId, observedEventIds: [] });
    const facts = finishFacts(read, {
      itemId: '',
      observed: null,
      company: { name: report.company_name, domain: report.root_domain },
      evidence: [],
      activity: null,
    });
    return { facts: facts.profile!.facts, analysis: analyzeProfile(facts.profile!.facts) };
  }

  test('the stored analysis is what the stored rows evaluate to, after a first scan and after a second that replaces evidence and events', async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'finish-facts' },
      body: reportBody({ profiles: people(3, 'facts') }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const reportId: string = created.body.data.report.id;
    const profileIds: string[] = created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id);
    await processAll();

    // A second scan of two of them: removed, then restored by an import (both modes queued again).
    const firstImages = await t.runtime.db.selectFrom('evidence_images').select('id').where('report_id', '=', reportId).where('obsolete', '=', false).execute();
    for (const id of profileIds.slice(0, 2)) await removeFromReport(t, reportId, id);
    const restored = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: owner.secret,
      headers: { 'idempotency-key': 'finish-facts-again' },
      body: { profiles: people(2, 'facts') },
    });
    assert.equal(restored.status, 201, JSON.stringify(restored.body));
    assert.equal(restored.body.data.counts.restored, 2);
    await processAll();

    const obsolete = await t.runtime.db.selectFrom('evidence_images').select('id').where('report_id', '=', reportId).where('obsolete', '=', true).execute();
    assert.ok(obsolete.length > 0 && obsolete.every((o) => firstImages.some((f) => f.id === o.id)), 'the second scan made the first images obsolete');
    for (const profileId of profileIds) {
      const stored = await t.runtime.db
        .selectFrom('profile_analyses')
        .select(['revision', 'findings'])
        .where('profile_id', '=', profileId)
        .executeTakeFirstOrThrow();
      const { facts, analysis } = await evaluatedFromRows(reportId, profileId);
      assert.ok(facts.imagesBySection.size > 0, 'the person has evidence');
      assert.ok(facts.activity !== null && facts.activity.length > 0, 'the person has activity');
      assert.deepEqual(stored.findings, JSON.parse(JSON.stringify(analysis.findings)));
      assert.equal(stored.revision, analysis.revision);
    }
    await assertTotalsMatchRebuild(t, reportId);
  });

  test("the read finds the person's stored events among the observed ids, and no one else's", async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'finish-facts-events' },
      body: reportBody({ profiles: people(2, 'events') }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const reportId: string = created.body.data.report.id;
    const [first, second]: string[] = created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id);
    await processAll();
    const events = (profileId: string) =>
      t.runtime.db
        .selectFrom('activity_events')
        .select(['id', 'external_id', 'content_hash'])
        .where('profile_id', '=', profileId)
        .orderBy('external_id')
        .execute();
    const [mine, theirs] = [await events(first), await events(second)];
    assert.ok(mine.length >= 2 && theirs.length > 0, 'both people have events');
    assert.ok(!theirs.some((o) => mine.some((e) => e.external_id === o.external_id)), 'the simulator gives each person their own event ids');
    const asked = [mine[0].external_id, mine[mine.length - 1].external_id, 'never-observed'];
    // The other person's ids are looked for too: none of their events may come back.
    const read = await readFinishFacts(t.runtime.db, { reportId, profileId: first, observedEventIds: [...asked, ...theirs.map((e) => e.external_id)] });
    assert.deepEqual(
      [...read.existingEvents.entries()].map(([externalId, e]) => [externalId, e.id, e.content_hash]).sort(),
      [mine[0], mine[mine.length - 1]].map((e) => [e.external_id, e.id, e.content_hash]).sort(),
    );
  });
});
