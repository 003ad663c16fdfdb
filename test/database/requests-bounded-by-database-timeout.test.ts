/**
 * No request waits on the database past DATABASE_TIMEOUT_MS (store/database.ts,
 * "statement bound"): the service reaches its database through a TCP relay
 * that the test can make silent (it accepts and keeps every connection, and
 * forwards nothing yet), standing in for a database whose address stopped
 * answering without a reset (a failover that moved it, a network cut).
 *
 * - A database that answers nothing: the request answers 503 `unavailable`
 *   with Retry-After and X-Request-ID, well before a client's deadline, and
 *   the service answers 200 again once the database does.
 * - A database that answers, and a statement that runs past the bound (here:
 *   waiting on a lock held elsewhere): the statement is cancelled and the
 *   request answers 500 `internal_error`, a bug to fix and not an outage.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, untilAnotherSessionWaitsOnALock, type TestDatabase } from '../support/db.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { relayedUrl, startRelay, targetOf, type Relay } from '../support/relay.js';

const TIMEOUT_MS = 1000;
/** A client's deadline, far past the bound (about twice TIMEOUT_MS): an answer by then is not a hang. */
const CLIENT_DEADLINE_MS = 15_000;

describe('a request waits on the database for a bounded time', () => {
  let database: TestDatabase;
  let relay: Relay;
  let t: TestApp;
  let secret: string;

  before(async () => {
    database = await createTestDatabase();
    relay = await startRelay(targetOf(database.url));
    t = await startTestApp({ database: { url: relayedUrl(database.url, relay), drop: async () => {} }, env: { DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) } });
    ({ secret } = await t.tenant());
  });

  after(async () => {
    relay.silent = false;
    await t?.close();
    await relay?.close();
    await database?.drop();
  });

  const listReports = () =>
    fetch(`${t.baseUrl}/api/v1/reports?limit=5`, { headers: { authorization: `Bearer ${secret}` }, signal: AbortSignal.timeout(CLIENT_DEADLINE_MS) });

  test('a database that stops answering: the request answers 503 unavailable with Retry-After, then 200 once it answers again', async () => {
    assert.equal((await listReports()).status, 200, 'the pool holds a connection through the relay');
    relay.silent = true;
    try {
      const res = await listReports();
      const body = (await res.json()) as { request_id: string; error: { code: string } };
      assert.equal(res.status, 503);
      assert.equal(body.error.code, 'unavailable');
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.equal(res.headers.get('x-request-id'), body.request_id);
      // A web page too: the plain "temporarily unavailable" page.
      const page = await fetch(`${t.baseUrl}/reports`, {
        headers: { cookie: `ps_session=${'a'.repeat(43)}` },
        signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
      });
      assert.equal(page.status, 503);
      assert.match(await page.text(), /temporarily unavailable/);
    } finally {
      relay.silent = false;
    }
    const back = await listReports();
    assert.equal(back.status, 200, 'the connection that had no answer was dropped; a new one serves');
  });

  test('a reachable database and a statement that runs past the bound: it is cancelled, and the request answers 500', async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table reports in access exclusive mode');
      const pending = listReports();
      await untilAnotherSessionWaitsOnALock(holder, 'the list of reports waits on the lock');
      const res = await pending;
      const body = (await res.json()) as { error: { code: string } };
      assert.equal(res.status, 500);
      assert.equal(body.error.code, 'internal_error');
      const { rows } = await holder.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
      );
      assert.equal(rows[0].n, 0, 'the statement was cancelled on the server, not left waiting');
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
    assert.equal((await listReports()).status, 200);
  });
});
