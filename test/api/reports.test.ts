/**
 * Report creation (4.4), lists (4.3, 4.6), reads (4.5, 4.7) through a real server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { archiveReport } from '../support/operator.js';

async function count(t: TestApp, table: 'reports' | 'report_profiles' | 'scan_runs' | 'scan_items'): Promise<number> {
  const row = await t.runtime.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /reports (4.4)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('4.4 rule 6: 201 created with absolute Location, report, one full_profile and one activity scan, rows', async () => {
    const { secret } = await t.tenant();
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'create-1' },
      body: reportBody({ profiles: [...people(2), { pronet_url: 'HTTP://www.pronet.example/in/Person-1/?utm=x' }] }),
    });
    assert.equal(res.status, 201);
    const data = res.body.data;
    assert.equal(data.outcome, 'created');
    assert.equal(res.headers.get('location'), `${t.baseUrl}/api/v1/reports/${data.report.id}`);
    assert.equal(data.report.company.root_domain, 'acme.co.uk');
    assert.equal(data.report.company.supplied_domain, 'www.acme.co.uk');
    assert.equal(data.report.profile_count, 2);
    assert.equal(data.report.analysis_state, 'queued');
    assert.equal(data.report.public_url, null);
    assert.equal(data.report.workspace_url, `${t.baseUrl}/reports/${data.report.id}`, '2.4: workspace_url is the report page in the web workspace');
    assert.deepEqual(
      data.scan_requests.map((s: any) => [s.mode, s.status, s.person_count, s.company_page_count]),
      [
        ['full_profile', 'queued', 2, 0],
        ['activity', 'queued', 2, 1],
      ],
    );
    assert.deepEqual(data.profiles.submitted, 3);
    assert.deepEqual(data.profiles.added, 2);
    assert.deepEqual(data.profiles.duplicate_in_input, 1);
    assert.deepEqual(data.profiles.rows[2], { row_number: 3, status: 'duplicate_in_input', first_row_number: 1 });
    assert.equal(data.profiles.rows[0].status, 'added');
    // The queue was committed with the report: every item is pending, claimable now.
    const { rows } = await t.runtime.pool.query(
      `select count(*)::int as n from scan_items i join scan_runs r on r.id = i.run_id
       where r.report_id = $1 and i.status = 'pending' and i.ready_at <= now()`,
      [data.report.id],
    );
    assert.equal(rows[0].n, 5);
  });

  test('section 3: with an empty profiles array no scans are queued', async () => {
    const { secret } = await t.tenant();
    const res = await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'empty-1' }, body: reportBody() });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.data.scan_requests, []);
    assert.equal(res.body.data.report.analysis_state, 'not_requested');
  });

  test('4.4 rule 8: a replay returns the original status and data with Idempotency-Replayed: true', async () => {
    const { secret } = await t.tenant();
    const body = reportBody({ profiles: people(1) });
    const first = await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'replay-1' }, body });
    const again = await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'replay-1' }, body });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(first.headers.get('idempotency-replayed'), null);
    assert.deepEqual(again.body.data, first.body.data);
    assert.notEqual(again.body.request_id, first.body.request_id);
  });

  test('decisions/idempotency: same key with a different body is 409 idempotency_key_reused', async () => {
    const { secret } = await t.tenant();
    await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'reuse-1' }, body: reportBody() });
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'reuse-1' },
      body: reportBody({ name: 'Other' }),
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'idempotency_key_reused');
  });

  test('decisions/idempotency: object key order does not change the fingerprint', async () => {
    const { secret } = await t.tenant();
    const b = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'order-1', 'content-type': 'application/json' },
      rawBody: '{"company":{"pronet_company_url":"https://p.example/c/a","domain":"a.com","name":"A"},"name":"N"}',
    });
    assert.equal(b.status, 201);
    const c = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'order-1', 'content-type': 'application/json' },
      rawBody: '{"name":"N","company":{"name":"A","domain":"a.com","pronet_company_url":"https://p.example/c/a"}}',
    });
    assert.equal(c.status, 201);
    assert.equal(c.headers.get('idempotency-replayed'), 'true');
  });

  test('4.4: a missing or malformed Idempotency-Key is 400 idempotency_key_invalid', async () => {
    const { secret } = await t.tenant();
    const missing = await t.request('POST', '/api/v1/reports', { key: secret, body: reportBody() });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'idempotency_key_invalid');
    const bad = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'has space' },
      body: reportBody(),
    });
    assert.equal(bad.status, 400);
    const long = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'k'.repeat(129) },
      body: reportBody(),
    });
    assert.equal(long.status, 400);
  });

  test('4.4 rule 1 / 2.7: every invalid field is a 422 validation_failed with details, and nothing is written', async () => {
    const { secret } = await t.tenant();
    const before = await count(t, 'reports');
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'invalid-1' },
      body: {
        name: '',
        extra: true,
        visibility: 'secret',
        company: { name: 'x'.repeat(201), domain: 'acme.com', pronet_company_url: 'ftp://x', more: 1 },
        profiles: [
          { pronet_url: 'mailto:jane@example.com' },
          { pronet_url: 'https://p.example/in/a', name: 'n'.repeat(201), role: 'x' },
          { pronet_url: 'https://p.example/in/b', headline: 'h'.repeat(501) },
        ],
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_failed');
    const details = res.body.error.details as any[];
    const has = (d: object) => details.some((x) => Object.entries(d).every(([k, v]) => x[k] === v));
    assert.ok(has({ field: 'name', code: 'too_short' }));
    assert.ok(has({ field: 'extra', code: 'unknown_field' }));
    assert.ok(has({ field: 'visibility' }));
    assert.ok(has({ field: 'company.name', code: 'too_long' }));
    assert.ok(has({ field: 'company.more', code: 'unknown_field' }));
    assert.ok(has({ field: 'company.pronet_company_url', code: 'invalid_url' }));
    assert.ok(has({ row_number: 1, field: 'pronet_url', code: 'invalid_url' }));
    assert.ok(has({ row_number: 2, field: 'name', code: 'too_long' }));
    assert.ok(has({ row_number: 2, field: 'profiles', code: 'unknown_field' }));
    assert.ok(has({ row_number: 3, field: 'headline', code: 'too_long' }));
    assert.ok(!res.text.includes('mailto:jane'), 'submitted values are never echoed');
    assert.equal(await count(t, 'reports'), before);
  });

  test('4.4: more than 100 people is 422 and nothing is written', async () => {
    const { secret } = await t.tenant();
    const before = await count(t, 'report_profiles');
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'many-1' },
      body: reportBody({ profiles: people(101) }),
    });
    assert.equal(res.status, 422);
    assert.ok(res.body.error.details.some((d: any) => d.field === 'profiles' && d.code === 'too_many'));
    assert.equal(await count(t, 'report_profiles'), before);
  });

  test('section 4: creating with people needs profiles:add as well', async () => {
    const tenant = await t.tenant({ scopes: ['reports:create', 'reports:read'] });
    const res = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'scope-1' },
      body: reportBody({ profiles: people(1) }),
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'insufficient_scope');
    const without = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'scope-2' },
      body: reportBody(),
    });
    assert.equal(without.status, 201);
  });

  test('4.4 rule 5: return_existing answers 200 existing with matches in every state and adds nobody', async () => {
    const { secret, workspaceId } = await t.tenant();
    const first = await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'ex-1' }, body: reportBody() });
    await archiveReport(t, first.body.data.report.id);
    const second = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'ex-2' },
      body: reportBody({
        company: { name: 'Acme', domain: 'https://shop.acme.co.uk/about', pronet_company_url: 'https://pronet.example/company/acme' },
      }),
    });
    const profilesBefore = await count(t, 'report_profiles');
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'ex-3' },
      body: reportBody({ on_existing: 'return_existing', profiles: people(3) }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.outcome, 'existing');
    assert.deepEqual(res.body.data.existing_reports.map((r: any) => r.id).sort(), [first.body.data.report.id, second.body.data.report.id].sort());
    assert.equal(res.body.data.next_cursor, null);
    assert.equal(await count(t, 'report_profiles'), profilesBefore);
    assert.equal(res.headers.get('location'), null);
    const replay = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'ex-3' },
      body: reportBody({ on_existing: 'return_existing', profiles: people(3) }),
    });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.ok(workspaceId);
  });

  test('4.4: 20 concurrent identical creates with one key make exactly one report', async () => {
    const { secret, workspaceId } = await t.tenant();
    const body = reportBody({ profiles: people(5) });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'race-1' }, body })),
    );
    for (const r of results) {
      assert.ok(r.status === 201 || (r.status === 409 && r.body.error.code === 'idempotency_request_in_progress'), `status ${r.status}`);
    }
    const created = results.filter((r) => r.status === 201);
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.body.data.report.id)).size, 1);
    const rows = await t.runtime.db.selectFrom('reports').select('id').where('workspace_id', '=', workspaceId).execute();
    assert.equal(rows.length, 1);
  });
});

describe('reading reports (4.3, 4.5-4.7)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function createMany(secret: string, n: number, domain = 'acme.com') {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await t.request('POST', '/api/v1/reports', {
        key: secret,
        headers: { 'idempotency-key': `many-${i}-${Math.random()}` },
        body: reportBody({ name: `R${i}`, company: { name: 'A', domain, pronet_company_url: 'https://p.example/c/a' } }),
      });
      assert.equal(res.status, 201);
      ids.push(res.body.data.report.id);
      (t.clock as any).advance?.(1000);
    }
    return ids;
  }

  test('4.3: pages are newest first; the traversal ends when next_cursor is null and misses nothing', async () => {
    const { secret } = await t.tenant();
    const ids = await createMany(secret, 7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const res = await t.request('GET', `/api/v1/reports${q}`, { key: secret });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'page', 'request_id']);
      seen.push(...res.body.data.map((r: any) => r.id));
      cursor = res.body.page.next_cursor;
      if (cursor) assert.ok(cursor.length <= 2048);
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
  });

  test('4.3: reports created during a traversal do not appear in it (upper watermark)', async () => {
    const { secret } = await t.tenant();
    await createMany(secret, 4);
    const first = await t.request('GET', '/api/v1/reports?limit=2', { key: secret });
    const [late] = await createMany(secret, 1);
    const second = await t.request('GET', `/api/v1/reports?limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`, {
      key: secret,
    });
    const all = [...first.body.data, ...second.body.data].map((r: any) => r.id);
    assert.ok(!all.includes(late));
    assert.equal(all.length, 4);
  });

  test('4.3: a tampered cursor, or one used with other filters, is 400 invalid_cursor', async () => {
    const { secret } = await t.tenant();
    await createMany(secret, 3);
    const first = await t.request('GET', '/api/v1/reports?limit=1', { key: secret });
    const cursor: string = first.body.page.next_cursor;
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    const a = await t.request('GET', `/api/v1/reports?limit=1&cursor=${encodeURIComponent(tampered)}`, { key: secret });
    assert.equal(a.status, 400);
    assert.equal(a.body.error.code, 'invalid_cursor');
    const b = await t.request('GET', `/api/v1/reports?limit=1&include_archived=true&cursor=${encodeURIComponent(cursor)}`, { key: secret });
    assert.equal(b.status, 400);
    const other = await t.tenant();
    const c = await t.request('GET', `/api/v1/reports?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: other.secret });
    assert.equal(c.status, 400);
  });

  test('4.3: archived reports are hidden unless include_archived=true', async () => {
    const { secret } = await t.tenant();
    const [id] = await createMany(secret, 1);
    await archiveReport(t, id);
    const hidden = await t.request('GET', '/api/v1/reports', { key: secret });
    assert.equal(hidden.body.data.length, 0);
    const shown = await t.request('GET', '/api/v1/reports?include_archived=true', { key: secret });
    assert.deepEqual(
      shown.body.data.map((r: any) => r.id),
      [id],
    );
    assert.equal(shown.body.data[0].archived, true);
  });

  test('4.3: company_root_domain matches the root and its subdomains, from a hostname or URL', async () => {
    const { secret } = await t.tenant();
    const [a] = await createMany(secret, 1, 'shop.example.co.uk');
    const [b] = await createMany(secret, 1, 'https://www.example.co.uk/x');
    await createMany(secret, 1, 'other.com');
    for (const filter of ['example.co.uk', 'https://blog.example.co.uk/', 'WWW.EXAMPLE.CO.UK']) {
      const res = await t.request('GET', `/api/v1/reports?company_root_domain=${encodeURIComponent(filter)}`, { key: secret });
      assert.deepEqual(res.body.data.map((r: any) => r.id).sort(), [a, b].sort(), filter);
    }
    const bad = await t.request('GET', '/api/v1/reports?company_root_domain=localhost', { key: secret });
    assert.equal(bad.status, 400);
  });

  test('4.3: limit outside 1-100 and unknown query parameters are 400', async () => {
    const { secret } = await t.tenant();
    assert.equal((await t.request('GET', '/api/v1/reports?limit=0', { key: secret })).status, 400);
    assert.equal((await t.request('GET', '/api/v1/reports?limit=101', { key: secret })).status, 400);
    assert.equal((await t.request('GET', '/api/v1/reports?colour=red', { key: secret })).status, 400);
  });

  test('2.4/4.5: GET /reports/{id} returns every field; another workspace gets 404', async () => {
    const { secret } = await t.tenant();
    const [id] = await createMany(secret, 1);
    const res = await t.request('GET', `/api/v1/reports/${id}`, { key: secret });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.data).sort(), [
      'analysis_state',
      'analyzed_profile_count',
      'archived',
      'company',
      'created_at',
      'id',
      'name',
      'profile_count',
      'public_url',
      'updated_at',
      'visibility',
      'workspace_id',
      'workspace_url',
    ]);
    const other = await t.tenant();
    const foreign = await t.request('GET', `/api/v1/reports/${id}`, { key: other.secret });
    assert.equal(foreign.status, 404);
    assert.equal((await t.request('GET', '/api/v1/reports/not-a-uuid', { key: secret })).status, 404);
  });

  test('2.5/4.6: the roster lists active attachments with every field, paginated', async () => {
    const { secret } = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'roster-1' },
      body: reportBody({ profiles: people(5) }),
    });
    const id = created.body.data.report.id;
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const res = await t.request('GET', `/api/v1/reports/${id}/profiles${q}`, { key: secret });
      assert.equal(res.status, 200);
      seen.push(...res.body.data);
      cursor = res.body.page.next_cursor;
    } while (cursor);
    assert.equal(seen.length, 5);
    assert.deepEqual(Object.keys(seen[0]).sort(), ['added_at', 'analysis_available', 'headline', 'id', 'name', 'pronet_url', 'report_id', 'source', 'title']);
    assert.ok(seen.every((p) => p.source === 'urls'));
    const other = await t.tenant();
    assert.equal((await t.request('GET', `/api/v1/reports/${id}/profiles`, { key: other.secret })).status, 404);
  });

  test('2.6/4.7: a scan run is readable by its report and invisible elsewhere', async () => {
    const { secret } = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'scan-1' },
      body: reportBody({ profiles: people(2) }),
    });
    const { report, scan_requests } = created.body.data;
    const res = await t.request('GET', `/api/v1/reports/${report.id}/scans/${scan_requests[1].id}`, { key: secret });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.counts, { requested: 3, completed: 0, warnings: 0, failed: 0 });
    assert.equal(res.body.data.status, 'queued');
    assert.equal(res.body.data.terminal_reason, null);
    const other = await t.tenant();
    assert.equal((await t.request('GET', `/api/v1/reports/${report.id}/scans/${scan_requests[1].id}`, { key: other.secret })).status, 404);
  });
});
