/**
 * Analysis reads (2.9, 4.10-4.11a) through a real server, real workers and a
 * real PostgreSQL: the summary's rules, the findings and activity
 * collections, their cursors and revisions, and that reads are pure.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { eventually, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { removeFromReport } from '../support/operator.js';

describe('analysis reads', () => {
  let t: TestApp;
  let clock: ManualClock;
  let secret: string;
  let reportId: string;
  const people = [
    'jane-doe',
    'quiet-bob',
    'inaccessible-ivy',
    'ann-lee',
    'max-power',
    'li-wei',
    'sam-oak',
    'kim-ray',
    'joe-fox',
    'eva-sun',
    'tom-elm',
    'zoe-ash',
  ];

  async function get(path: string, key = secret) {
    return t.request('GET', path, { key });
  }
  async function create(urls: string[], idem: string) {
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': idem },
      body: reportBody({ profiles: urls.map((u) => ({ pronet_url: `https://pronet.example/in/${u}` })) }),
    });
    assert.equal(res.status, 201);
    return res.body.data;
  }
  async function settled(id: string, runs: { id: string }[]) {
    for (const run of runs) {
      await eventually(async () => {
        const res = await get(`/api/v1/reports/${id}/scans/${run.id}`);
        return !['queued', 'running'].includes(res.body.data.status);
      });
    }
  }
  /** Follows next_cursor to the end; returns every record. */
  async function traverse(path: string, query = '') {
    const records: any[] = [];
    let cursor: string | null = null;
    let revision: string | null = null;
    do {
      const sep = query ? '&' : '';
      const res = await get(`${path}?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      revision ??= res.body.revision;
      assert.equal(res.body.revision, revision);
      records.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    return { records, revision };
  }

  before(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp({ clock });
    secret = (await t.tenant()).secret;
    const created = await create(people, 'analysis-main');
    reportId = created.report.id;
    // 2.9 rule 3 is checked before any worker runs (next test); workers start after.
  });
  after(async () => t.close());

  test('2.9 rule 3: a report with no results yet reads 200 with empty values', async () => {
    const res = await get(`/api/v1/reports/${reportId}/analysis`);
    assert.equal(res.status, 200);
    const s = res.body.data;
    assert.equal(s.availability, 'none');
    assert.equal(s.has_usable_results, false);
    assert.equal(s.work.state, 'queued');
    assert.equal(s.work.counts.requested, people.length * 2 + 1);
    assert.equal(s.work.counts.queued, people.length * 2 + 1);
    assert.equal(s.work.all_requested_work_terminal, false);
    assert.equal(s.coverage.person_profiles, people.length);
    assert.equal(s.coverage.optimization.analyzed_profiles, 0);
    assert.equal(s.optimization_summary.counts.answered, 0);
    assert.equal(s.optimization_summary.counts.score_pct, null, 'rule 1: score_pct is null with nothing answered');
    assert.ok(s.optimization_summary.checks.length >= 20);
    assert.ok(s.optimization_summary.checks.every((c: any) => c.score_pct === null && typeof c.revision === 'string'));
    assert.equal(s.freshness.state, 'unknown');
    assert.equal(s.report.company.observed_context, null);
    assert.equal(s.evaluated_at, clock.now().toISOString(), 'evaluated_at is the read time');
    assert.equal(s.work.scan_run_ids.length, 2);
    const page = await get(`/api/v1/reports/${reportId}/analysis/profiles`);
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 10, '4.11: default limit 10');
    assert.ok(page.body.data.every((r: any) => r.analysis === null && r.reason === 'scan_queued'));
  });

  test('2.9: after the scans, the summary is consistent with the stored findings (rules 1 and 2)', async () => {
    const runs = (await get(`/api/v1/reports/${reportId}/analysis`)).body.data.work.scan_run_ids.map((id: string) => ({ id }));
    await t.startWorker(2);
    await settled(reportId, runs);
    const s = (await get(`/api/v1/reports/${reportId}/analysis`)).body.data;
    const { records, revision } = await traverse(`/api/v1/reports/${reportId}/analysis/profiles`, 'limit=5');
    assert.equal(revision, s.collections.profiles_revision);
    assert.equal(records.length, people.length, 'one record per attached person');
    const analyzed = records.filter((r) => r.analysis !== null);
    assert.equal(analyzed.length, people.length - 1);
    const ivy = records.find((r) => r.pronet_url.endsWith('inaccessible-ivy'));
    assert.equal(ivy.analysis, null);
    assert.equal(ivy.reason, 'profile_inaccessible');

    // Rule 1, recomputed from the records.
    const all = analyzed.flatMap((r) => r.analysis.checks);
    const good = all.filter((c: any) => c.outcome === 'good').length;
    const optimize = all.filter((c: any) => c.outcome === 'optimize').length;
    const unknown = all.filter((c: any) => c.outcome === 'unknown').length;
    assert.deepEqual(
      {
        good: s.optimization_summary.counts.good,
        optimize: s.optimization_summary.counts.optimize,
        unknown: s.optimization_summary.counts.unknown,
      },
      { good, optimize, unknown },
    );
    assert.equal(s.optimization_summary.counts.answered, good + optimize);
    assert.equal(s.optimization_summary.counts.score_pct, Math.round((good / (good + optimize)) * 1000) / 10);
    for (const check of s.optimization_summary.checks) {
      const mine = all.filter((c: any) => c.id === check.id);
      assert.equal(check.good, mine.filter((c: any) => c.outcome === 'good').length, check.key);
      assert.equal(check.answered, check.good + check.optimize);
    }
    const categoryTotal = s.optimization_summary.categories.reduce((sum: number, c: any) => sum + c.answered, 0);
    assert.equal(categoryTotal, good + optimize);

    // Rule 2: company-page actors exist but never count as analyzed people.
    const activity = await traverse(`/api/v1/reports/${reportId}/analysis/activity`, 'limit=100');
    assert.equal(activity.revision, s.collections.activity_revision);
    assert.ok(activity.records.some((e) => e.actor.kind === 'company_page' && e.profile_id === null));
    assert.equal(s.optimization_summary.cohort_profile_count, people.length - 1);
    assert.equal(s.coverage.optimization.analyzed_profiles, people.length - 1);
    assert.equal(s.coverage.person_profiles, people.length);
    assert.equal(s.coverage.activity.company_page_observed, true);
    assert.equal(s.coverage.activity.observed_person_profiles, people.length - 1);
    assert.ok(s.report.company.observed_context?.industry !== undefined, 'rule 5: observed company context');

    // One person inaccessible: partial availability, work completed with issues, stale freshness.
    assert.equal(s.has_usable_results, true);
    assert.equal(s.availability, 'partial');
    assert.equal(s.work.state, 'completed_with_issues');
    assert.equal(s.work.all_requested_work_terminal, true);
    assert.equal(s.work.all_requested_work_succeeded, false);
    assert.equal(s.work.counts.inaccessible, 2);
    assert.equal(s.freshness.state, 'stale');
    assert.ok(s.freshness.reasons.includes('latest_attempt_failed'));
    assert.ok(s.limitations.some((l: any) => l.code === 'incomplete_profile_coverage'));
    assert.ok(s.freshness.oldest_captured_at && s.freshness.newest_captured_at);

    // Records carry what 2.9 names, and nothing internal.
    const jane = records.find((r) => r.pronet_url.endsWith('jane-doe'));
    const check = jane.analysis.checks[0];
    for (const field of ['id', 'key', 'outcome', 'observed_value', 'recommendation', 'source_url', 'evidence']) assert.ok(field in check, field);
    const withImages = jane.analysis.checks.filter((c: any) => c.evidence.images.length > 0);
    assert.ok(withImages.length > 0, 'an ordinary person has screenshot evidence');
    assert.match(withImages[0].evidence.images[0].url, new RegExp(`/api/v1/reports/${reportId}/evidence/[0-9a-f-]{36}$`));
    const image = await get(new URL(withImages[0].evidence.images[0].url).pathname);
    assert.equal(image.status, 200);
    assert.ok(!JSON.stringify(records).includes('profile_data'));

    // Stored revisions are the served ones (the aggregates hash what is served).
    const stored = await t.runtime.db.selectFrom('activity_events').select(['id', 'revision']).where('report_id', '=', reportId).execute();
    const storedRev = new Map(stored.map((r) => [r.id, r.revision]));
    assert.ok(activity.records.every((e) => storedRev.get(e.id) === e.revision));
  });

  test('2.9 rule 3: a report whose scans all failed reads 200 with the failure as a state', async () => {
    const f = await create(['failing-fran'], 'analysis-failing');
    await settled(f.report.id, f.scan_requests);
    const res = await get(`/api/v1/reports/${f.report.id}/analysis`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.availability, 'none');
    assert.equal(res.body.data.work.state, 'completed_with_issues', 'the company page succeeded, the person failed');
    assert.equal(res.body.data.work.counts.failed, 2);
    const page = await get(`/api/v1/reports/${f.report.id}/analysis/profiles`);
    assert.equal(page.body.data[0].reason, 'scan_failed');
  });

  test('decisions/revisions: revisions are stable across reads and change exactly when results change', async () => {
    const first = (await get(`/api/v1/reports/${reportId}/analysis`)).body.data;
    clock.advance(1000);
    const again = (await get(`/api/v1/reports/${reportId}/analysis`)).body.data;
    assert.equal(again.results_revision, first.results_revision);
    assert.equal(again.work_revision, first.work_revision);
    assert.deepEqual(again.collections, first.collections);
    assert.notEqual(again.evaluated_at, first.evaluated_at);

    // A new person: the profiles collection and the work change.
    const imp = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': 'rev-import' },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/new-nora' }] },
    });
    assert.equal(imp.status, 201);
    const queued = (await get(`/api/v1/reports/${reportId}/analysis`)).body.data;
    assert.notEqual(queued.collections.profiles_revision, first.collections.profiles_revision);
    assert.notEqual(queued.work_revision, first.work_revision);
    assert.notEqual(queued.results_revision, first.results_revision);
    assert.equal(queued.availability, 'partial', 'rule 4: available results stay readable while a refresh is queued');
    assert.ok(queued.freshness.reasons.includes('refresh_in_progress'));
    await settled(
      reportId,
      imp.body.data.scan_requests.map((s: any) => ({ id: s.scan_run_id })),
    );
    const done = (await get(`/api/v1/reports/${reportId}/analysis`)).body.data;
    assert.equal(done.coverage.optimization.analyzed_profiles, people.length);
    assert.notEqual(done.collections.activity_revision, first.collections.activity_revision);
  });

  test('4.11: cursors are bound to their request, expire after 15 minutes, and a changed collection is 409 results_changed', async () => {
    const base = `/api/v1/reports/${reportId}/analysis/profiles`;
    const first = await get(`${base}?limit=3`);
    const cursor = encodeURIComponent(first.body.next_cursor);
    assert.ok(first.body.next_cursor);
    assert.equal((await get(`${base}?limit=3&cursor=${cursor}`)).status, 200);
    const rebound = await get(`${base}?limit=4&cursor=${cursor}`);
    assert.equal(rebound.status, 400);
    assert.equal(rebound.body.error.code, 'invalid_cursor');
    const tampered = first.body.next_cursor.slice(0, -2) + (first.body.next_cursor.endsWith('A') ? 'BB' : 'AA');
    assert.equal((await get(`${base}?limit=3&cursor=${encodeURIComponent(tampered)}`)).body.error.code, 'invalid_cursor');
    const foreign = await get(`/api/v1/reports/${reportId}/analysis/activity?limit=3&cursor=${cursor}`);
    assert.equal(foreign.body.error.code, 'invalid_cursor');
    assert.equal(foreign.body.error.next_action, 'restart_traversal');
    assert.equal((await get(`${base}?limit=26`)).status, 400, 'limit max 25');

    const stale = await get(`${base}?limit=3&expected_revision=not-the-revision`);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error.code, 'results_changed');
    assert.equal(stale.body.error.retryable, true);

    clock.advance(15 * 60 * 1000 + 1000);
    const expired = await get(`${base}?limit=3&cursor=${cursor}`);
    assert.equal(expired.status, 400);
    assert.equal(expired.body.error.code, 'cursor_expired');

    // The collection changes mid-traversal (a person is removed).
    const page1 = await get(`${base}?limit=3&expected_revision=${first.body.revision}`);
    assert.equal(page1.status, 200);
    const victim = page1.body.data[0].profile_id;
    await removeFromReport(t, reportId, victim);
    const page2 = await get(`${base}?limit=3&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    assert.equal(page2.status, 409);
    assert.equal(page2.body.error.code, 'results_changed');
    assert.equal(page2.body.error.next_action, 'restart_traversal');
    const after = await traverse(base, 'limit=25');
    assert.ok(!after.records.some((r) => r.profile_id === victim), 'a removed person leaves the collection');
    const byProfile = await get(`${base}?profile_id=${victim}`);
    assert.equal(byProfile.status, 404);
    const events = await traverse(`/api/v1/reports/${reportId}/analysis/activity`, 'limit=100');
    assert.ok(!events.records.some((e) => e.profile_id === victim), "a removed person's activity leaves the collection");
  });

  test('4.11a: activity filters, date boundaries and stable id order', async () => {
    const base = `/api/v1/reports/${reportId}/analysis/activity`;
    const { records } = await traverse(base, 'limit=7');
    const ids = records.map((r) => r.id);
    assert.deepEqual(ids, [...ids].sort(), 'ordered by id');
    assert.equal(new Set(ids).size, ids.length);
    const dated = records.filter((r) => r.occurred_at !== null);
    const undated = records.filter((r) => r.occurred_at === null);
    assert.ok(dated.length > 0);
    const pivot = dated[Math.floor(dated.length / 2)].occurred_at as string;
    const from = await traverse(base, `limit=100&occurred_from=${encodeURIComponent(pivot)}`);
    const to = await traverse(base, `limit=100&occurred_to=${encodeURIComponent(pivot)}`);
    assert.ok(
      from.records.some((r) => r.occurred_at === pivot),
      'start inclusive',
    );
    assert.ok(!to.records.some((r) => r.occurred_at === pivot), 'end exclusive');
    assert.equal(from.records.length + to.records.length, dated.length, 'undated events are excluded under a date filter');
    assert.ok(from.records.every((r) => r.occurred_at !== null));
    // Without a date filter the events of unknown date are listed: exactly the visible ones stored
    // without a date (the company page's, and those of people still attached).
    const storedUndated = await t.runtime.db
      .selectFrom('activity_events as e')
      .leftJoin('report_profiles as p', 'p.id', 'e.profile_id')
      .select('e.id')
      .where('e.report_id', '=', reportId)
      .where('e.occurred_at', 'is', null)
      .where((eb) => eb.or([eb('e.profile_id', 'is', null), eb('p.status', '=', 'active')]))
      .execute();
    assert.ok(storedUndated.length > 0, 'the simulated people include events of unknown date');
    assert.deepEqual(
      undated.map((r) => r.id),
      storedUndated.map((r) => r.id).sort(),
      'undated events are listed without a date filter',
    );

    const posts = await traverse(base, 'limit=100&event_type=post');
    assert.deepEqual(
      posts.records.map((r) => r.id),
      records.filter((r) => r.event_type === 'post').map((r) => r.id),
    );
    const person = records.find((r) => r.profile_id !== null)!.profile_id;
    const own = await traverse(base, `limit=100&profile_id=${person}`);
    assert.deepEqual(
      own.records.map((r) => r.id),
      records.filter((r) => r.profile_id === person).map((r) => r.id),
    );

    for (const bad of ['2026-01-01', '2026-01-01T00:00:00', 'yesterday']) {
      const res = await get(`${base}?occurred_from=${encodeURIComponent(bad)}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error.retryable, false);
    }
    assert.equal((await get(`${base}?event_type=like`)).status, 400);
    assert.equal((await get(`${base}?limit=101`)).status, 400);
    assert.equal((await get(base)).body.data.length, 25, '4.11a: default limit 25');
  });

  test('8: pages stop early under the 2 MiB budget; one record over it is 422 result_too_large', async () => {
    const c = await create(['big-ben', 'big-bo', 'big-bea', 'big-bill'], 'analysis-budget');
    await settled(c.report.id, c.scan_requests);
    const rows = await t.runtime.db.selectFrom('profile_analyses').select(['profile_id', 'findings']).where('report_id', '=', c.report.id).execute();
    assert.equal(rows.length, 4);
    // Inflate stored findings: ~0.9 MiB per person; quoted evidence is never shortened.
    for (const row of rows) {
      const findings = (row.findings as any[]).map((f, i) => (i === 0 ? { ...f, observed: 'x'.repeat(900 * 1024) } : f));
      await t.runtime.db
        .updateTable('profile_analyses')
        .set({ findings: JSON.stringify(findings) })
        .where('profile_id', '=', row.profile_id)
        .execute();
    }
    const base = `/api/v1/reports/${c.report.id}/analysis/profiles`;
    const page = await get(`${base}?limit=4`);
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 2, 'cut early to stay under 2 MiB');
    assert.ok(Buffer.byteLength(page.text) <= 2 * 1024 * 1024);
    assert.ok(page.body.next_cursor);
    assert.equal(page.body.data[0].analysis.checks[0].observed_value.length, 900 * 1024);
    const rest = await get(`${base}?limit=4&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    assert.equal(rest.body.data.length, 2);
    assert.equal(rest.body.next_cursor, null);

    const huge = rows[0];
    const findings = (huge.findings as any[]).map((f, i) => (i === 0 ? { ...f, observed: 'y'.repeat(2 * 1024 * 1024 + 10) } : f));
    await t.runtime.db
      .updateTable('profile_analyses')
      .set({ findings: JSON.stringify(findings) })
      .where('profile_id', '=', huge.profile_id)
      .execute();
    const tooLarge = await get(`${base}?profile_id=${huge.profile_id}`);
    assert.equal(tooLarge.status, 422);
    assert.equal(tooLarge.body.error.code, 'result_too_large');
    assert.equal(tooLarge.body.error.retryable, false);
  });

  test('4.10-4.11: scopes, foreign reports and unknown reports', async () => {
    const narrow = await t.key(
      (await t.runtime.db.selectFrom('reports').select('workspace_id').where('id', '=', reportId).executeTakeFirstOrThrow()).workspace_id,
      {
        scopes: ['reports:read', 'profiles:read'],
      },
    );
    const denied = await get(`/api/v1/reports/${reportId}/analysis`, narrow.secret);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'insufficient_scope');
    assert.equal(typeof denied.body.error.next_action, 'string', '7.1: analysis errors carry next_action');
    const other = await t.tenant();
    for (const path of ['analysis', 'analysis/profiles', 'analysis/activity']) {
      const res = await get(`/api/v1/reports/${reportId}/${path}`, other.secret);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await get('/api/v1/reports/00000000-0000-4000-8000-000000000000/analysis')).status, 404);
  });

  test('1/decisions: reads are pure — a burst of reads changes no row and no updated_at', async () => {
    const tables = [
      'reports',
      'report_profiles',
      'scan_runs',
      'scan_items',
      'profile_analyses',
      'activity_events',
      'activity_coverage',
      'company_context',
      'evidence_images',
      'report_aggregates',
      'profile_contributions',
      'import_receipts',
      'idempotency_records',
    ];
    const snapshot = async () => {
      const out: Record<string, string> = {};
      for (const table of tables) {
        const { rows } = await t.runtime.pool.query(`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h, count(*) as n from ${table} t`);
        out[table] = `${rows[0].n}:${rows[0].h}`;
      }
      return out;
    };
    const before = await snapshot();
    const paths = [
      `/api/v1/reports/${reportId}`,
      `/api/v1/reports/${reportId}/analysis`,
      `/api/v1/reports/${reportId}/analysis/profiles?limit=25`,
      `/api/v1/reports/${reportId}/analysis/activity?limit=100`,
      `/api/v1/reports/${reportId}/profiles`,
    ];
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => get(paths[i % paths.length])));
    assert.ok(responses.every((r) => r.status === 200));
    assert.deepEqual(await snapshot(), before);
  });
});
