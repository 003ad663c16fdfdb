/**
 * States in plain words on the pages (real server, PostgreSQL and scan
 * worker; the simulator's `inaccessible-…` profiles cannot be read): the
 * report page says how many people could not be scanned, why and what to do;
 * the person's page gives the reason and the advice; the public page says
 * how many people the results cover, and nothing alarming.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { WebClient, webUser, type WebUser } from '../support/web.js';

describe('web: plain words', () => {
  let t: TestApp;
  let owner: WebUser;
  let reportId: string;
  let hiddenId: string;

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant();
    owner = await webUser(t, tenant.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'plain' },
      body: reportBody({
        profiles: [
          { pronet_url: 'https://pronet.example/in/jane-doe' },
          { pronet_url: 'https://pronet.example/in/ada-lovelace' },
          { pronet_url: 'https://pronet.example/in/inaccessible-hidden' },
        ],
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    hiddenId = created.body.data.profiles.rows[2].profile_id;
    await t.startWorker(4);
    await scansFinished(t, tenant.secret, reportId);
  });
  after(() => t?.close());

  test('the report page says how many people could not be scanned, why, and what to do; no jargon', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    assert.match(page.text, /<div class="notice attention" role="note" id="trouble"><p><strong>2 of 3 people analyzed\. What to do:<\/strong>/);
    assert.match(
      page.text,
      /<li data-trouble="profile_inaccessible"><a href="[^"]+status=profile_inaccessible[^"]*">1 person could not be scanned<\/a>: their profile is not public \(or the address is wrong\)\. Ask them/,
    );
    for (const jargon of ['Stale', 'Completed with issues', 'Results: Partial', 'Freshness']) assert.ok(!page.text.includes(jargon), jargon);
  });

  test('the person who could not be scanned: their page gives the reason and the advice', async () => {
    const page = await owner.client.get(`/reports/${reportId}/people/${hiddenId}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /<strong>The profile could not be read<\/strong>/);
    assert.match(page.text, /The profile is not public, or the address is wrong\. Check the address, ask the person/);
    assert.doesNotMatch(page.text, /No analysis for this person yet/);
  });

  test('the public page says how many people the results cover, in a sentence, without jargon', async () => {
    const share = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/share`, { public: '1' });
    const shared = await owner.client.get(share.location!);
    const publicUrl = /href="(http[^"]+\/public\/reports\/[^"]+)"/.exec(shared.text)![1];
    const publicPage = await new WebClient(t.baseUrl).get(new URL(publicUrl).pathname);
    assert.match(publicPage.text, /Results cover 2 of 3 people; the others could not be scanned \(for example, their profiles are not public\)\./);
    for (const jargon of ['Stale', 'results partial', 'inaccessible-hidden']) assert.ok(!publicPage.text.includes(jargon), jargon);
  });

  test('a public link that does not work says so in the words of someone outside the workspace', async () => {
    for (const path of ['/public/reports/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/public/reports/not-a-token']) {
      const page = await new WebClient(t.baseUrl).get(path);
      assert.equal(page.status, 404, path);
      assert.match(
        page.text,
        /This link does not work: the report is no longer shared, or the link is incomplete\. Ask the person who sent it for a new one\./,
      );
      assert.doesNotMatch(page.text, /key/, 'no API words');
    }
  });
});
