/**
 * Evidence from what was really captured, end to end: a collector's record
 * links images (photo, banner, logo) on a local HTTPS CDN; the item handler
 * downloads them through the safe fetcher configured from EVIDENCE_*, renders
 * the cards of the sections with data, stores both with their origin, and
 * the API serves them (no new field per image, 2.x) and their bytes (4.12).
 * No background worker: the test drives the item handler over the queue's claims.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LinkedImage } from '../../src/domain/collected.js';
import type { CollectRequest } from '../../src/scanning/collectors/collector.js';
import type { HandlerContext } from '../../src/scanning/item-handler.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { SafeFetcher } from '../../src/scanning/media/safe-fetch.js';
import { startFakeCdn, type FakeCdn } from '../support/fake-cdn.js';
import { LinkingCollector } from '../support/linking-collector.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { scanQueued } from '../support/handler.js';
import { foldsSettled } from '../support/rollups.js';

const isWebp = (bytes: Buffer) => bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP';

describe('evidence: captured images and rendered cards', () => {
  let cdn: FakeCdn;
  let t: TestApp;
  let owner: Tenant;
  let ctx: HandlerContext;
  const logged: string[] = [];
  /** The images each profile's (or company page's) record links to, by the URL's last segment. */
  const linksOf = new Map<string, LinkedImage[]>();

  before(async () => {
    cdn = await startFakeCdn();
    t = await startTestApp({
      env: { EVIDENCE_IMAGE_HOSTS: cdn.hostEntry, EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/32', EVIDENCE_FETCH_CA_FILE: cdn.caFile },
    });
    owner = await t.tenant();
    const collector = new LinkingCollector((request: CollectRequest) =>
      request.mode === 'full_profile' || request.kind === 'company_page' ? (linksOf.get(request.url.split('/').pop()!) ?? []) : [],
    );
    ctx = {
      db: t.runtime.db,
      clock: t.clock,
      media: new FileMediaStore(path.join(t.config.dataDir, 'media')),
      collectorFor: () => collector,
      timeoutMs: 20_000,
      maxAttempts: 1,
      log: (m) => logged.push(m),
      evidence: { fetcher: new SafeFetcher(t.config.evidenceFetch!), log: (m) => logged.push(m) },
    };
  });
  after(async () => {
    await t?.close();
    await cdn?.close();
  });

  /** A report of these people (and a company page), every item processed; the report id and profile ids by slug. */
  async function scanned(slugs: string[], company = 'acme'): Promise<{ reportId: string; profiles: Map<string, string> }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': `captured-${slugs.join('-')}-${Math.random()}` },
      body: reportBody({
        company: { name: 'Acme', domain: 'acme.example', pronet_company_url: `https://pronet.example/company/${company}` },
        profiles: slugs.map((slug) => ({ pronet_url: `https://pronet.example/in/${slug}` })),
      }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await scanQueued(t, ctx);
    await foldsSettled(t);
    const rows = created.body.data.profiles.rows as Array<{ profile_id: string }>;
    return { reportId: created.body.data.report.id, profiles: new Map(slugs.map((slug, i) => [slug, rows[i].profile_id])) };
  }

  async function evidenceOf(reportId: string, profileId: string | null) {
    const query = t.runtime.db
      .selectFrom('evidence_images as e')
      .innerJoin('scan_items as i', 'i.id', 'e.item_id')
      .select(['e.id', 'e.section', 'e.origin', 'e.original_type', 'e.original_sha256', 'e.preview_type', 'i.warning'])
      .where('e.report_id', '=', reportId)
      .where('e.obsolete', '=', false);
    return (profileId === null ? query.where('e.profile_id', 'is', null) : query.where('e.profile_id', '=', profileId)).orderBy('e.section').execute();
  }

  test("a person's linked photo and banner are captured top_card evidence beside the section's rendered card; every section with data has its card", async () => {
    linksOf.set('jane-doe', [
      { section: 'top_card', url: `${cdn.baseUrl}/photo.jpg` },
      { section: 'top_card', url: `${cdn.baseUrl}/banner.png` },
    ]);
    const { reportId, profiles } = await scanned(['jane-doe']);
    const images = await evidenceOf(reportId, profiles.get('jane-doe')!);
    const top = images.filter((i) => i.section === 'top_card');
    assert.deepEqual(top.map((i) => `${i.origin} ${i.original_type}`).sort(), ['captured image/jpeg', 'captured image/png', 'rendered image/png']);
    for (const section of ['about', 'experience', 'skills', 'activity'].filter((s) => images.some((i) => i.section === s))) {
      assert.deepEqual(
        images.filter((i) => i.section === section).map((i) => i.origin),
        ['rendered'],
        section,
      );
    }
    assert.ok(images.length >= 4);
    assert.ok(
      images.every((i) => i.preview_type === 'image/webp' && !i.warning),
      'previews made, no warning',
    );
    assert.equal(cdn.hits.get('/photo.jpg'), 1);
  });

  test('2.x: an evidence image in the API gains no field (url and preview_url, as before); the captured photo downloads as the CDN served it (4.12)', async () => {
    linksOf.set('john-roe', [{ section: 'top_card', url: `${cdn.baseUrl}/photo.jpg` }]);
    const { reportId, profiles } = await scanned(['john-roe']);
    const read = await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?profile_id=${profiles.get('john-roe')}`, { key: owner.secret });
    assert.equal(read.status, 200);
    const record = read.body.data[0] ?? Object.values(read.body).find(Array.isArray)?.[0];
    const photo = record.analysis.checks.find((c: { key: string }) => c.key === 'identity.has_photo');
    assert.equal(photo.evidence.images.length, 2, 'the top card and the photo');
    // Origin is not an API field (docs/collectors.md "Captured or rendered"): the card says it in its pixels, the web page labels it.
    for (const image of photo.evidence.images) assert.deepEqual(Object.keys(image).sort(), ['preview_url', 'url']);
    const stored = await evidenceOf(reportId, profiles.get('john-roe')!);
    const captured = stored.find((i) => i.origin === 'captured')!;
    const original = await fetch(photo.evidence.images.find((i: { url: string }) => i.url.endsWith(captured.id)).url, {
      headers: { authorization: `Bearer ${owner.secret}` },
    });
    assert.equal(original.status, 200);
    assert.equal(original.headers.get('content-type'), 'image/jpeg');
    assert.ok(Buffer.from(await original.arrayBuffer()).equals(cdn.images.jpeg));
    const preview = await fetch(`${photo.evidence.images[0].url}?variant=preview`, { headers: { authorization: `Bearer ${owner.secret}` } });
    assert.ok(isWebp(Buffer.from(await preview.arrayBuffer())));
  });

  test("a company page's linked logo (WebP) is captured company evidence beside its card", async () => {
    linksOf.set('logo-corp', [{ section: 'company', url: `${cdn.baseUrl}/logo.webp` }]);
    const { reportId } = await scanned(['ada-king'], 'logo-corp');
    const company = await evidenceOf(reportId, null);
    assert.deepEqual(company.map((i) => `${i.origin} ${i.original_type}`).sort(), ['captured image/webp', 'rendered image/png']);
  });

  test('a linked image the fetcher refuses, or that is not an image, is left out: the item succeeds as a warning and the section keeps its card', async () => {
    const refusedLinks: Record<string, LinkedImage[]> = {
      'http-link': [{ section: 'top_card', url: `http://${cdn.hostEntry}/photo.jpg` }],
      'off-list': [{ section: 'top_card', url: 'https://evil.example/photo.jpg' }],
      'not-image': [{ section: 'top_card', url: `${cdn.baseUrl}/not-an-image` }],
      'gone-image': [{ section: 'top_card', url: `${cdn.baseUrl}/missing` }],
    };
    for (const [slug, links] of Object.entries(refusedLinks)) linksOf.set(slug, links);
    logged.length = 0;
    const { reportId, profiles } = await scanned(Object.keys(refusedLinks));
    for (const slug of Object.keys(refusedLinks)) {
      const images = await evidenceOf(reportId, profiles.get(slug)!);
      const top = images.filter((i) => i.section === 'top_card');
      assert.deepEqual(
        top.map((i) => i.origin),
        ['rendered'],
        slug,
      );
      assert.ok(top[0].warning, `${slug}: the full_profile item is a warning`);
    }
    const runs = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).where('mode', '=', 'full_profile').execute();
    assert.equal(runs[0].status, 'completed');
    assert.equal(runs[0].warnings, 4);
    for (const code of ['not_https', 'host_not_allowed', 'bad_status'])
      assert.ok(
        logged.some((m) => m.includes(code)),
        `${code} logged: ${logged.join(' | ')}`,
      );
    assert.ok(
      logged.every((m) => !m.includes('evil.example') && !m.includes('/photo.jpg')),
      'no URL in the log',
    );
  });

  test('without a fetcher (EVIDENCE_IMAGE_HOSTS=none) linked images are not downloaded: a warning, and the card', async () => {
    linksOf.set('no-fetch', [{ section: 'top_card', url: `${cdn.baseUrl}/photo.jpg` }]);
    const before = cdn.hits.get('/photo.jpg') ?? 0;
    const saved = ctx.evidence;
    ctx.evidence = { fetcher: null };
    try {
      const { reportId, profiles } = await scanned(['no-fetch']);
      const top = (await evidenceOf(reportId, profiles.get('no-fetch')!)).filter((i) => i.section === 'top_card');
      assert.deepEqual(
        top.map((i) => [i.origin, i.warning]),
        [['rendered', true]],
      );
    } finally {
      ctx.evidence = saved;
    }
    assert.equal(cdn.hits.get('/photo.jpg') ?? 0, before);
  });
});
