/**
 * Profile imports (4.8) and receipts (4.9) through a real server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { people, reportBody, startTestApp, type Response, type TestApp } from '../support/app.js';
import { archiveReport, removeFromReport } from '../support/operator.js';

describe('POST /reports/{id}/profile-imports (4.8) and receipts (4.9)', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date());
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(async () => t.close());

  async function newReport(secret: string, profiles = people(2)) {
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': `r-${Math.random()}` },
      body: reportBody({ profiles }),
    });
    assert.equal(res.status, 201);
    return res.body.data;
  }
  const importPath = (id: string, q = '') => `/api/v1/reports/${id}/profile-imports${q}`;

  describe('4.8 rules 1-3 and section 3: one import of a new, a removed, a present and a repeated person', () => {
    let secret = '';
    let reportId = '';
    let removedId = '';
    let commit: Response;
    const body = {
      profiles: [
        { pronet_url: 'https://pronet.example/in/new-1', name: 'Private Name' },
        { pronet_url: 'https://pronet.example/in/person-2' },
        { pronet_url: 'https://pronet.example/in/person-1' },
        { pronet_url: 'https://www.pronet.example/in/NEW-1/' },
      ],
    };
    before(async () => {
      secret = (await t.tenant()).secret;
      const created = await newReport(secret, people(2));
      reportId = created.report.id;
      removedId = created.profiles.rows[1].profile_id;
      await removeFromReport(t, reportId, removedId);
    });

    test('the preview classifies every row (would_add, would_restore, already_present, duplicate_in_input) with exact counts', async () => {
      const preview = await t.request('POST', importPath(reportId, '?validation_only=true'), { key: secret, body });
      assert.equal(preview.status, 200);
      assert.deepEqual(preview.body.data.counts, {
        submitted: 4,
        would_add: 1,
        would_restore: 1,
        already_present: 1,
        duplicate_in_input: 1,
        would_queue_profiles: 2,
      });
      assert.deepEqual(
        preview.body.data.rows.map((r: any) => r.status),
        ['would_add', 'would_restore', 'already_present', 'duplicate_in_input'],
      );
    });

    test('4.8 rule 2: a preview changes nothing', async () => {
      const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: secret });
      assert.equal(roster.body.data.length, 1);
    });

    test('the commit answers 201 with the receipt at Location, completed, with exact counts', async () => {
      commit = await t.request('POST', importPath(reportId), { key: secret, headers: { 'idempotency-key': 'imp-1' }, body });
      assert.equal(commit.status, 201);
      const receipt = commit.body.data;
      assert.equal(commit.headers.get('location'), `${t.baseUrl}/api/v1/reports/${reportId}/profile-imports/${receipt.id}`);
      assert.equal(receipt.state, 'completed');
      assert.deepEqual(receipt.counts, {
        submitted: 4,
        added: 1,
        restored: 1,
        already_present: 1,
        duplicate_in_input: 1,
        profiles_queued: 2,
      });
    });

    test('an added or restored row queues both scans; already_present queues nothing; a duplicate names its first row', () => {
      const [added, restored, present, duplicate] = commit.body.data.rows;
      assert.equal(added.status, 'added');
      assert.equal(added.scan_requests.length, 2);
      assert.equal(restored.status, 'restored');
      assert.equal(restored.scan_requests.length, 2);
      assert.equal(present.status, 'already_present');
      assert.equal(present.scan_requests, undefined);
      assert.deepEqual(duplicate, { row_number: 4, status: 'duplicate_in_input', duplicate_of_row: 1 });
    });

    test('a restore keeps the profile_id and says so in a note, and the history is kept (added, removed, restored)', async () => {
      const restored = commit.body.data.rows[1];
      assert.equal(restored.profile_id, removedId);
      assert.equal(restored.notes[0].code, 'previously_removed_profile_restored');
      const events = await t.runtime.db.selectFrom('profile_events').select('event').where('profile_id', '=', removedId).orderBy('id').execute();
      assert.deepEqual(
        events.map((e) => e.event),
        ['added', 'removed', 'restored'],
      );
    });

    test('2.8: receipts omit supplied names and URLs', () => {
      assert.ok(!commit.text.includes('Private Name') && !commit.text.includes('new-1'));
    });

    test('4.9: the receipt reads back as it was committed', async () => {
      const read = await t.request('GET', `/api/v1/reports/${reportId}/profile-imports/${commit.body.data.id}`, { key: secret });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, commit.body.data);
    });
  });

  test('4.8 rule 4: the same body replays the receipt; another body with the key is 409', async () => {
    const { secret } = await t.tenant();
    const { report } = await newReport(secret);
    const body = { profiles: people(3, 'imp') };
    const first = await t.request('POST', importPath(report.id), { key: secret, headers: { 'idempotency-key': 'imp-2' }, body });
    const again = await t.request('POST', importPath(report.id), { key: secret, headers: { 'idempotency-key': 'imp-2' }, body });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body.data, first.body.data);
    const other = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'imp-2' },
      body: { profiles: people(2, 'imp') },
    });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_key_reused');
  });

  test('decisions/coalescing: a second import while the runs are queued joins them', async () => {
    const { secret } = await t.tenant();
    const { report, scan_requests } = await newReport(secret, people(1));
    const res = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'co-1' },
      body: { profiles: people(2, 'co') },
    });
    assert.deepEqual(
      res.body.data.scan_requests.map((s: any) => [s.scan_run_id, s.mode, s.status_at_commit, s.jobs_created, s.jobs_coalesced]),
      [
        [scan_requests[0].id, 'full_profile', 'queued', 2, 0],
        [scan_requests[1].id, 'activity', 'queued', 2, 0],
      ],
    );
  });

  test('4.8 rule 5: an archived report refuses imports with 409 report_archived', async () => {
    const { secret } = await t.tenant();
    const { report } = await newReport(secret);
    await archiveReport(t, report.id);
    const res = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'arch-1' },
      body: { profiles: people(1, 'z') },
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'report_archived');
  });

  test('4.8 rule 1: invalid rows are 422 import_validation_failed, retryable false, with per-row details; nothing changes', async () => {
    const { secret } = await t.tenant();
    const { report } = await newReport(secret);
    const res = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'bad-1' },
      body: {
        profiles: [
          { pronet_url: 'https://pronet.example/in/ok' },
          { pronet_url: 'not a url' },
          { pronet_url: 'https://p.example/in/x', title: '' },
          { nope: 1 },
        ],
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'import_validation_failed');
    assert.equal(res.body.error.retryable, false);
    const details = res.body.error.details;
    assert.ok(details.some((d: any) => d.row_number === 2 && d.field === 'pronet_url' && d.code === 'invalid_url'));
    assert.ok(details.some((d: any) => d.row_number === 3 && d.field === 'title'));
    assert.ok(details.some((d: any) => d.row_number === 4 && d.field === 'pronet_url' && d.code === 'required'));
    assert.ok(details.every((d: any) => ['profiles', 'pronet_url', 'name', 'title', 'headline'].includes(d.field)));
    const empty = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'bad-2' },
      body: { profiles: [] },
    });
    assert.equal(empty.status, 422);
    const roster = await t.request('GET', `/api/v1/reports/${report.id}/profiles`, { key: secret });
    assert.equal(roster.body.data.length, 2);
  });

  test('4.8: a commit needs an Idempotency-Key; a preview does not', async () => {
    const { secret } = await t.tenant();
    const { report } = await newReport(secret);
    const commit = await t.request('POST', importPath(report.id), { key: secret, body: { profiles: people(1, 'k') } });
    assert.equal(commit.status, 400);
    assert.equal(commit.body.error.code, 'idempotency_key_invalid');
    const preview = await t.request('POST', importPath(report.id, '?validation_only=true'), {
      key: secret,
      body: { profiles: people(1, 'k') },
    });
    assert.equal(preview.status, 200);
  });

  test('4.9: receipts are 404 for another report, workspace or unknown id, and 410 after 30 days', async () => {
    const { secret } = await t.tenant();
    const { report } = await newReport(secret);
    const { report: otherReport } = await newReport(secret);
    const commit = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'exp-1' },
      body: { profiles: people(1, 'e') },
    });
    const id = commit.body.data.id;
    assert.equal((await t.request('GET', `/api/v1/reports/${otherReport.id}/profile-imports/${id}`, { key: secret })).status, 404);
    const stranger = await t.tenant();
    assert.equal((await t.request('GET', `/api/v1/reports/${report.id}/profile-imports/${id}`, { key: stranger.secret })).status, 404);
    assert.equal((await t.request('GET', `/api/v1/reports/${report.id}/profile-imports/${crypto.randomUUID()}`, { key: secret })).status, 404);
    clock.advance(30 * 24 * 3600 * 1000 - 1000);
    assert.equal((await t.request('GET', `/api/v1/reports/${report.id}/profile-imports/${id}`, { key: secret })).status, 200);
    clock.advance(2000);
    const expired = await t.request('GET', `/api/v1/reports/${report.id}/profile-imports/${id}`, { key: secret });
    assert.equal(expired.status, 410);
    assert.equal(expired.body.error.code, 'receipt_expired');
    // The replay window ended too: the same key and body is now a new intent.
    const again = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'exp-1' },
      body: { profiles: people(1, 'e') },
    });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotency-replayed'), null);
    assert.equal(again.body.data.counts.already_present, 1);
  });

  test('8: submitted rows per workspace are limited on commit only (1000 default)', async () => {
    const { secret } = await t.tenant({
      limits: { writes_per_minute_per_key: 1000, writes_per_minute_per_workspace: 1000, submitted_profiles_per_minute_per_workspace: 150 },
    });
    const { report } = await newReport(secret, []);
    const preview = await t.request('POST', importPath(report.id, '?validation_only=true'), {
      key: secret,
      body: { profiles: people(100, 'p') },
    });
    assert.equal(preview.status, 200);
    const first = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'rows-1' },
      body: { profiles: people(100, 'a') },
    });
    assert.equal(first.status, 201);
    const second = await t.request('POST', importPath(report.id), {
      key: secret,
      headers: { 'idempotency-key': 'rows-2' },
      body: { profiles: people(100, 'b') },
    });
    assert.equal(second.status, 429);
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
    const roster = await t.runtime.db.selectFrom('report_profiles').select('id').where('report_id', '=', report.id).execute();
    assert.equal(roster.length, 100, 'the refused batch wrote nothing');
  });
});
