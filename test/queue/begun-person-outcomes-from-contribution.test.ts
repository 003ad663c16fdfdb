/**
 * A begun person's read (the fold's, and every reader's until that fold)
 * takes the person's check outcomes from their stored contribution when that
 * contribution was made from the analysis stored (its `analysis` names the
 * revision, which identifies the findings), and expands the findings
 * otherwise (store/rollup-repository.ts, `BEGUN_PERSON_FACTS_COLUMNS`). The
 * reads below run in a transaction that is rolled back: the contribution is
 * altered there only to see which source the read used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
// The begun read's SQL, run in a rolled-back transaction to see which source it used.
import { begunPeopleSql } from '../../src/store/person-facts.js';
import { settleStaleRollups } from '../../src/queue/settle.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { scanQueued } from '../support/handler.js';
import { assertTotalsMatchRebuild } from '../support/rollups.js';

describe("a begun person's outcomes", () => {
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  let profileId: string;
  let revision: string;
  /** The outcomes the stored findings give, by check id. */
  let fromFindings: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'begun-outcomes' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/ada-outcomes' }] }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    reportId = created.body.data.report.id;
    profileId = created.body.data.profiles.rows[0].profile_id;
    await scanQueued(t);
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    const analysis = await t.runtime.db
      .selectFrom('profile_analyses')
      .select(['revision', 'findings'])
      .where('profile_id', '=', profileId)
      .executeTakeFirstOrThrow();
    revision = analysis.revision;
    fromFindings = Object.fromEntries(analysis.findings.map((f) => [f.check_id, f.outcome]));
    assert.ok(Object.keys(fromFindings).length > 0);
  });
  after(async () => {
    await t?.close();
  });

  /**
   * The outcomes a begun read gives for the person, after `alter` changed their stored contribution
   * (SQL over `contribution`), in a transaction rolled back afterwards.
   */
  async function begunOutcomes(alter: string): Promise<Record<string, string>> {
    const client = new pg.Client({ connectionString: t.config.databaseUrl! });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`update profile_contributions set contribution = ${alter} where profile_id = $1`, [profileId]);
      // A delta naming the person, as a begun item's: readers then read them as a begun person.
      await client.query(`insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id) values ($1, null, false, now(), $2)`, [
        reportId,
        profileId,
      ]);
      const { rows } = await client.query(`select ${begunPeopleSql('$1::uuid')} as people`, [reportId]);
      const people = rows[0].people as { id: string; analysis: { revision: string; outcomes: Record<string, string> } }[];
      assert.equal(people.length, 1);
      assert.equal(people[0].analysis.revision, revision);
      return people[0].analysis.outcomes;
    } finally {
      await client.query('rollback');
      await client.end();
    }
  }

  /** A contribution whose checks all say `marker` (an outcome no check of the simulator has at once). */
  const allMarked = (marker: string) =>
    `jsonb_set(contribution, '{checks}', (select jsonb_object_agg(k, '"${marker}"'::jsonb) from jsonb_object_keys(contribution->'checks') k))`;

  test('the stored contribution records the analysis its outcomes come from', async () => {
    const stored = await t.runtime.db.selectFrom('profile_contributions').select('contribution').where('profile_id', '=', profileId).executeTakeFirstOrThrow();
    assert.equal(stored.contribution.analysis, revision);
    assert.deepEqual(stored.contribution.checks, fromFindings);
  });

  test('a begun read takes the outcomes from a contribution made from the same analysis', async () => {
    const outcomes = await begunOutcomes(allMarked('unknown'));
    assert.deepEqual(new Set(Object.values(outcomes)), new Set(['unknown']));
    assert.deepEqual(Object.keys(outcomes).sort(), Object.keys(fromFindings).sort());
  });

  test('a begun read expands the findings when the contribution was stored without naming its analysis', async () => {
    assert.deepEqual(await begunOutcomes(`${allMarked('unknown')} - 'analysis'`), fromFindings);
  });

  test('a begun read expands the findings when the contribution names another analysis', async () => {
    assert.deepEqual(await begunOutcomes(`jsonb_set(${allMarked('unknown')}, '{analysis}', '"another-revision"')`), fromFindings);
  });

  test('a person whose contribution was stored without naming its analysis is recomputed exactly by the fold, which stores the name', async () => {
    const client = new pg.Client({ connectionString: t.config.databaseUrl! });
    await client.connect();
    try {
      await client.query(`update profile_contributions set contribution = contribution - 'analysis' where profile_id = $1`, [profileId]);
      await client.query(`insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id) values ($1, null, false, now(), $2)`, [
        reportId,
        profileId,
      ]);
    } finally {
      await client.end();
    }
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    assert.equal(await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).executeTakeFirst(), undefined);
    const stored = await t.runtime.db.selectFrom('profile_contributions').select('contribution').where('profile_id', '=', profileId).executeTakeFirstOrThrow();
    assert.equal(stored.contribution.analysis, revision);
    await assertTotalsMatchRebuild(t, reportId);
  });
});
