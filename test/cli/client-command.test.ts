/**
 * `profile-scan client` end to end: the CLI is spawned as a child process
 * (bin/profile-scan.js, as users run it) against a real server and a real
 * PostgreSQL. CSV imports (bad rows, 500 people in contract-sized imports),
 * watch, export, evidence, mirror, the key's sources and the exit codes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { ManualClock } from '../../src/clock.js';
import type { ScanWorker } from '../../src/scanning/worker.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startRecordingProxy } from '../support/client-proxies.js';

const BIN = fileURLToPath(new URL('../../bin/profile-scan.js', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

let scratch: string;

/** Runs `profile-scan client …` with a clean environment: only PATH, HOME and what the test passes. */
function cli(args: string[], env: Record<string, string | undefined>, input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'client', ...args], {
      env: { PATH: process.env.PATH, HOME: path.join(scratch, 'home'), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = null;
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
    child.stdin.end(input);
  });
}

async function csvFile(name: string, lines: string[]): Promise<string> {
  const file = path.join(scratch, name);
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

async function traverse(t: TestApp, key: string, reportId: string, collection: 'profiles' | 'activity'): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const qs: URLSearchParams = new URLSearchParams({ limit: collection === 'profiles' ? '25' : '100', ...(cursor ? { cursor } : {}) });
    const res: { status: number; body: any; text: string } = await t.request('GET', `/api/v1/reports/${reportId}/analysis/${collection}?${qs}`, { key });
    assert.equal(res.status, 200, res.text);
    all.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return all;
}

describe('profile-scan client (CLI) end to end', () => {
  let t: TestApp;
  let secret: string;
  let env: Record<string, string>;
  let worker: ScanWorker | null = null;

  const createReport = async (name: string) => {
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': `cli-${Math.random().toString(36).slice(2)}` },
      body: reportBody({ name }),
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data.report.id as string;
  };
  const profileCount = async (reportId: string) => (await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret })).body.data.profile_count as number;

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-cli-'));
    await fs.mkdir(path.join(scratch, 'home'));
    t = await startTestApp({ clock: new ManualClock(new Date()), env: { SIMULATOR_DELAY_MS: '2' } });
    ({ secret } = await t.tenant());
    env = { PROFILE_SCAN_BASE_URL: t.baseUrl, PROFILE_SCAN_API_KEY: secret };
  });
  after(async () => {
    await worker?.stop();
    await t.close();
    await fs.rm(scratch, { recursive: true, force: true });
  });

  test('usage: help is 0; no command, unknown commands and options, and a key flag are usage errors (2); without a key it says where to put one', async () => {
    assert.equal((await cli(['--help'], env)).code, 0);
    assert.equal((await cli([], env)).code, 2);
    for (const args of [['frobnicate'], ['list', '--frob'], ['list', '--yes'], ['context', '--api-key', secret], ['summary', 'not-a-uuid']]) {
      const run = await cli([...args, '--json'], env);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.equal(run.json.error.code, 'usage_error');
      assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), 'the key is never printed');
    }
    const keyless = await cli(['context'], { PROFILE_SCAN_BASE_URL: t.baseUrl });
    assert.equal(keyless.code, 2);
    assert.match(keyless.stderr, /PROFILE_SCAN_API_KEY/);
    assert.match(keyless.stderr, /client login/);
  });

  test('login reads the key from stdin and saves it with mode 0600; commands then use it; a config readable by others is refused', async () => {
    const config = path.join(scratch, 'cfg', 'client.json');
    const login = await cli(['login', '--config', config, '--json'], { PROFILE_SCAN_BASE_URL: t.baseUrl }, `${secret}\n`);
    assert.equal(login.code, 0, login.stdout + login.stderr);
    assert.match(login.json.key_id, UUID);
    assert.ok(!login.stdout.includes(secret));
    assert.equal((await fs.stat(config)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await fs.readFile(config, 'utf8')), { base_url: t.baseUrl, api_key: secret });

    const context = await cli(['context', '--json'], { PROFILE_SCAN_CONFIG: config });
    assert.equal(context.code, 0, context.stderr);
    assert.equal(context.json.key_id, login.json.key_id);

    await fs.chmod(config, 0o644);
    const open = await cli(['context'], { PROFILE_SCAN_CONFIG: config });
    assert.equal(open.code, 2);
    assert.match(open.stderr, /chmod 600/);

    const wrong = await cli(
      ['login', '--config', path.join(scratch, 'cfg', 'other.json')],
      { PROFILE_SCAN_BASE_URL: t.baseUrl },
      'psk_test_00000000000000000000000000000000\n',
    );
    assert.equal(wrong.code, 3, 'an invalid key is an API error (401) and nothing is saved');
    await assert.rejects(fs.stat(path.join(scratch, 'cfg', 'other.json')));
  });

  test('import: rows the spreadsheet rules refuse are named by spreadsheet row with the value quoted, and nothing is sent (exit 2)', async () => {
    const reportId = await createReport('Bad rows');
    const lines = ['pronet_url,name,title'];
    for (let i = 1; i <= 150; i++) {
      if (i === 10) lines.push('ftp://pronet.example/in/bad-scheme,,');
      else if (i === 60) lines.push('https://www.linkedin.com/company/acme,Acme,');
      else if (i === 121) lines.push(',Nameless,');
      else lines.push(`https://pronet.example/in/bad-rows-${i},Person ${i},`);
    }
    const file = await csvFile('bad-rows.csv', lines);
    const run = await cli(['import', reportId, file, '--yes', '--json'], env);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.json.error.code, 'invalid_file');
    assert.deepEqual(
      run.json.error.rows.map((r: { row: number }) => r.row),
      [11, 61, 122],
    );
    const human = await cli(['import', reportId, file, '--yes'], env);
    assert.equal(human.code, 2);
    assert.match(human.stderr, /row 11: “ftp:\/\/pronet\.example\/in\/bad-scheme” is not a profile URL/);
    assert.match(human.stderr, /row 61: “https:\/\/www\.linkedin\.com\/company\/acme” is a company page, not a person's profile/);
    assert.match(human.stderr, /row 122: the profile URL is missing\./);
    assert.equal(await profileCount(reportId), 0, 'nothing was committed');

    const unclosed = await cli(['import', reportId, await csvFile('unclosed.csv', ['pronet_url,name', 'https://pronet.example/in/a,"Ann']), '--yes'], env);
    assert.equal(unclosed.code, 2);
    assert.match(unclosed.stderr, /not a valid CSV file/);
    const noUrlColumn = await cli(['import', reportId, await csvFile('no-url-column.csv', ['Employee,Team', 'Ann,Sales']), '--yes'], env);
    assert.equal(noUrlColumn.code, 2);
    assert.match(noUrlColumn.stderr, /row 1: No column of the header holds the profile URLs: name it “LinkedIn URL”, “Profile URL”, “URL”/);
  });

  test("import: the API's per-row errors name the spreadsheet row and quote the value from the file, and nothing is committed (exit 3)", async () => {
    const reportId = await createReport('API rows');
    const lines = ['Profile URL,Name'];
    for (let i = 1; i <= 150; i++) lines.push(i === 120 ? `pronet.example/in/long-name,Dr ${'x'.repeat(201)}` : `pronet.example/in/api-rows-${i},Person ${i}`);
    const file = await csvFile('api-rows.csv', lines);
    const run = await cli(['import', reportId, file, '--yes', '--json'], env);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.equal(run.json.error.code, 'import_validation_failed');
    assert.deepEqual(
      run.json.error.rows.map((r: { line: number; field: string; code: string }) => [r.line, r.field, r.code]),
      [[121, 'name', 'too_long']],
    );
    const human = await cli(['import', reportId, file, '--yes'], env);
    assert.equal(human.code, 3);
    assert.match(human.stderr, /1 of 150 rows are invalid; nothing was imported/);
    assert.match(human.stderr, /^\s*121\s+name\s+too_long\s+“Dr x{76}…”$/m);
    assert.equal(await profileCount(reportId), 0);
  });

  test('import: an HR export of 300 people ("LinkedIn URL", URLs without https://, a department) is imported in three imports; a re-run replays them', async () => {
    const reportId = await createReport('HR export');
    const file = await csvFile('hr-export.csv', [
      'Employee,Department,LinkedIn URL',
      ...Array.from({ length: 300 }, (_, i) => `Person ${i},${i % 2 ? 'Sales' : 'Engineering'},${i % 2 ? 'www.' : ''}linkedin.com/in/hr-${i}`),
    ]);
    const run = await cli(['import', reportId, file, '--yes', '--json'], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stderr, /ignoring columns: Department/);
    assert.equal(run.json.imports.length, 3);
    assert.equal(run.json.totals.added, 300);
    assert.match(run.json.idempotency_prefix, /^import-[0-9a-f]{40}$/, 'the prefix is derived from the report and the people');
    assert.equal(await profileCount(reportId), 300);
    const again = await cli(['import', reportId, file, '--yes', '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json.idempotency_prefix, run.json.idempotency_prefix);
    assert.ok(
      again.json.imports.every((i: { replayed: boolean }) => i.replayed),
      'the same file into the same report replays: nobody is added twice',
    );
    assert.equal(await profileCount(reportId), 300);
  });

  test('import: of several URL columns the one with profile URLs is used and named; --url-column chooses another', async () => {
    const reportId = await createReport('Two columns');
    const file = await csvFile('two-columns.csv', ['URL,LinkedIn', 'https://acme.example/team/ana,linkedin.com/in/ana-two']);
    const run = await cli(['import', reportId, file, '--yes', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /several columns could hold the profile URLs \(URL, LinkedIn\); using "LinkedIn" \(choose with --url-column\)/);
    const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: secret });
    assert.deepEqual(
      roster.body.data.map((p: { pronet_url: string }) => p.pronet_url),
      ['https://linkedin.com/in/ana-two'],
    );
    const other = await csvFile('two-columns-b.csv', ['URL,LinkedIn', 'https://acme.example/team/ana,linkedin.com/in/ana-two']);
    const chosen = await cli(['import', reportId, other, '--yes', '--json', '--url-column', 'url'], env);
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.equal(chosen.json.totals.added, 1);
    const unknown = await cli(['import', reportId, other, '--yes', '--url-column', 'Profil'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No column is named “Profil”/);
  });

  test(
    'import: 500 people are previewed and committed as five contract-sized imports, each with its own key; ' +
      'unconfirmed is nothing; a re-run with the prefix replays',
    async () => {
      const reportId = await createReport('Five hundred');
      const file = await csvFile('people-500.csv', [
        'pronet_url,name,headline',
        ...Array.from({ length: 500 }, (_, i) => `https://pronet.example/in/five-${i + 1},Person ${i + 1},"Sales, EMEA"`),
      ]);

      const unconfirmed = await cli(['import', reportId, file], env);
      assert.equal(unconfirmed.code, 6, unconfirmed.stderr);
      assert.match(unconfirmed.stdout, /Preview of 500 rows/);
      assert.match(unconfirmed.stderr, /--yes/);
      assert.equal(await profileCount(reportId), 0);

      const proxy = await startRecordingProxy(t.baseUrl);
      try {
        const run = await cli(['import', reportId, file, '--yes', '--json', '--idempotency-prefix', 'five-hundred'], {
          ...env,
          PROFILE_SCAN_BASE_URL: proxy.url,
        });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.equal(run.json.imports.length, 5);
        assert.deepEqual(run.json.totals.added, 500);
        assert.deepEqual(run.json.preview.would_add, 500);
        assert.deepEqual(
          run.json.imports.map((i: { lines: string; idempotency_key: string }) => [i.lines, i.idempotency_key]),
          [1, 2, 3, 4, 5].map((n) => [`${(n - 1) * 100 + 2}-${n * 100 + 1}`, `five-hundred-${n}-of-5`]),
        );
        const posts = proxy.requests.map((r, i) => [r, proxy.idempotencyKeys[i]] as const).filter(([r]) => r.startsWith('POST'));
        assert.equal(posts.filter(([r, key]) => r.includes('validation_only=true') && key === null).length, 5, 'five previews without a key');
        const commits = posts.filter(([r]) => !r.includes('validation_only'));
        assert.deepEqual(
          commits.map(([, key]) => key),
          [1, 2, 3, 4, 5].map((n) => `five-hundred-${n}-of-5`),
        );
        for (const i of run.json.imports) {
          const receipt = await t.request('GET', `/api/v1/reports/${reportId}/profile-imports/${i.receipt_id}`, { key: secret });
          assert.equal(receipt.body.data.counts.submitted, 100, 'each import holds 100 rows');
        }
      } finally {
        await proxy.close();
      }
      assert.equal(await profileCount(reportId), 500);

      const again = await cli(['import', reportId, file, '--yes', '--json', '--idempotency-prefix', 'five-hundred'], env);
      assert.equal(again.code, 0, again.stderr);
      assert.ok(
        again.json.imports.every((i: { replayed: boolean }) => i.replayed),
        'the same prefix replays the saved receipts',
      );
      assert.equal(await profileCount(reportId), 500);
    },
  );

  describe('with scans running', () => {
    let reportId: string;
    before(async () => {
      reportId = await createReport('Watched');
      const file = await csvFile('watched.csv', [
        'pronet_url',
        ...Array.from({ length: 12 }, (_, i) => `https://pronet.example/in/watched-${i + 1}`),
        'https://pronet.example/in/inaccessible-wendy',
      ]);
      const run = await cli(['import', reportId, file, '--yes'], env);
      assert.equal(run.code, 0, run.stderr);
      worker = await t.startWorker(2);
    });

    test('watch follows the scans to completion with a progress bar; --json gives the final runs as the API shows them', async () => {
      const human = await cli(['watch', reportId, '--interval', '0.05'], env);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stderr, /\] 100% \d+\/\d+ /);
      assert.match(human.stdout, /full_profile/);

      const run = await cli(['watch', reportId, '--json', '--interval', '0.05'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json.all_terminal, true);
      assert.equal(run.json.all_succeeded, false, 'one person is inaccessible');
      assert.equal(run.json.scans.length, 2);
      for (const scan of run.json.scans) {
        const api = await t.request('GET', `/api/v1/reports/${reportId}/scans/${scan.id}`, { key: secret });
        assert.deepEqual(scan, api.body.data);
      }
    });

    test('summary prints tables; --json is the API summary', async () => {
      const human = await cli(['summary', reportId], env);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^availability\s+\w+/m);
      assert.match(human.stdout, /^category\s+good\s+optimize\s+answered\s+score$/m);
      const run = await cli(['summary', reportId, '--json'], env);
      const api = (await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: secret })).body.data;
      assert.deepEqual({ ...run.json, evaluated_at: null }, { ...api, evaluated_at: null });
    });

    test('export: findings and activity as JSON Lines and CSV match the API data', async () => {
      const findings = await traverse(t, secret, reportId, 'profiles');
      const activity = await traverse(t, secret, reportId, 'activity');
      assert.equal(findings.length, 13);
      assert.ok(activity.length > 0);

      const jsonl = path.join(scratch, 'findings.jsonl');
      const a = await cli(['export', reportId, 'findings', '--output', jsonl, '--json'], env);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(a.json.records, 13);
      const exported = (await fs.readFile(jsonl, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(exported, findings);

      const stdout = await cli(['export', reportId, 'activity', '--format', 'jsonl'], env);
      assert.equal(stdout.code, 0, stdout.stderr);
      assert.deepEqual(
        stdout.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
        activity,
      );

      const csv = await cli(['export', reportId, 'findings', '--format', 'csv'], env);
      const rows = parse<Record<string, string>>(csv.stdout, { columns: true });
      const expected = findings.flatMap((f) => (f.analysis?.checks?.length ? f.analysis.checks.map((c: any) => ({ f, c })) : [{ f, c: null }]));
      assert.equal(rows.length, expected.length);
      rows.forEach((row, i) => {
        const { f, c } = expected[i]!;
        assert.equal(row.profile_id, f.profile_id);
        assert.equal(row.reason, f.reason ?? '');
        assert.equal(row.check_key, c?.key ?? '');
        assert.equal(row.outcome, c?.outcome ?? '');
        assert.equal(row.recommendation, c?.recommendation ?? '');
        assert.equal(row.observed_value, c === null || c.observed_value === null ? '' : String(c.observed_value));
        assert.equal(row.evidence_urls, c ? c.evidence.images.map((im: { url: string }) => im.url).join(' ') : '');
      });

      const activityCsv = path.join(scratch, 'activity.csv');
      assert.equal((await cli(['export', reportId, 'activity', '-o', activityCsv], env)).code, 0);
      const events = parse<Record<string, string>>(await fs.readFile(activityCsv, 'utf8'), { columns: true });
      assert.deepEqual(
        events.map((e) => e.id),
        activity.map((e) => e.id),
      );
      events.forEach((e, i) => {
        const api = activity[i]!;
        assert.deepEqual(
          [e.profile_id, e.event_type, e.actor_kind, e.text, e.occurred_at, e.reactions, e.revision],
          [
            api.profile_id ?? '',
            api.event_type,
            api.actor.kind,
            api.text ?? '',
            api.occurred_at ?? '',
            api.counts.reactions === null ? '' : String(api.counts.reactions),
            api.revision,
          ],
        );
      });
    });

    test('evidence: every image of the findings is streamed to disk once; a re-run downloads nothing', async () => {
      const dir = path.join(scratch, 'evidence');
      const run = await cli(['evidence', reportId, '--dir', dir, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      const findings = await traverse(t, secret, reportId, 'profiles');
      const urls = new Set(findings.flatMap((f) => f.analysis?.checks ?? []).flatMap((c: any) => c.evidence.images.map((im: { url: string }) => im.url)));
      assert.ok(urls.size > 0);
      assert.deepEqual([run.json.images, run.json.downloaded, run.json.skipped], [urls.size, urls.size, 0]);
      const index = JSON.parse(await fs.readFile(path.join(dir, 'evidence.json'), 'utf8'));
      const first = index[0];
      const direct = Buffer.from(await (await fetch(first.url, { headers: { authorization: `Bearer ${secret}` } })).arrayBuffer());
      assert.ok((await fs.readFile(path.join(dir, first.file))).equals(direct));
      const again = await cli(['evidence', reportId, '--dir', dir, '--json'], env);
      assert.deepEqual([again.json.downloaded, again.json.skipped], [0, urls.size]);
    });

    test('mirror: the first run fetches everything; a second run with no change fetches only the summary; after a change only that collection', async () => {
      const dir = path.join(scratch, 'mirror');
      const proxy = await startRecordingProxy(t.baseUrl);
      const viaProxy = { ...env, PROFILE_SCAN_BASE_URL: proxy.url };
      try {
        const first = await cli(['mirror', reportId, '--dir', dir, '--json'], viaProxy);
        assert.equal(first.code, 0, first.stdout + first.stderr);
        assert.deepEqual([first.json.profiles.status, first.json.activity.status], ['replaced', 'replaced']);
        assert.ok(proxy.requests.some((r) => r.includes('/analysis/profiles?')) && proxy.requests.some((r) => r.includes('/analysis/activity?')));
        assert.equal(first.json.requests, proxy.requests.length);
        assert.deepEqual(
          (await fs.readFile(path.join(dir, 'findings.jsonl'), 'utf8'))
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l)),
          (await traverse(t, secret, reportId, 'profiles')).sort((a, b) => (a.profile_id < b.profile_id ? -1 : 1)),
        );

        proxy.requests.length = 0;
        const second = await cli(['mirror', reportId, '--dir', dir, '--json'], viaProxy);
        assert.equal(second.code, 0, second.stderr);
        assert.deepEqual(proxy.requests, [`GET /api/v1/reports/${reportId}/analysis`], 'only the summary');
        assert.deepEqual([second.json.profiles.status, second.json.activity.status, second.json.requests], ['unchanged', 'unchanged', 1]);

        // A person added while no worker runs changes the findings collection only.
        await worker!.stop();
        worker = null;
        const added = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
          key: secret,
          headers: { 'idempotency-key': 'mirror-late' },
          body: { profiles: [{ pronet_url: 'https://pronet.example/in/mirror-late' }] },
        });
        assert.equal(added.status, 201);
        proxy.requests.length = 0;
        const third = await cli(['mirror', reportId, '--dir', dir, '--json'], viaProxy);
        assert.equal(third.code, 0, third.stderr);
        assert.deepEqual([third.json.profiles.status, third.json.activity.status], ['replaced', 'unchanged']);
        assert.deepEqual(third.json.profiles.changes, { added: 1, updated: 0, removed: 0 });
        assert.ok(
          proxy.requests.every((r) => !r.includes('/analysis/activity')),
          'activity was not fetched',
        );
        const saved = (await fs.readFile(path.join(dir, 'findings.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        assert.equal(saved.length, 14);
      } finally {
        await proxy.close();
      }
    });
  });

  test('exit codes: API errors are 3 (with code and request_id), rate limiting is 4, an unreachable service is 5', async () => {
    const missing = await cli(['summary', '00000000-0000-4000-8000-000000000000', '--json'], env);
    assert.equal(missing.code, 3);
    assert.equal(missing.json.error.code, 'not_found');
    assert.match(missing.json.error.request_id, UUID);
    assert.equal(missing.json.error.exit_code, 3);

    const limited = await t.tenant({
      limits: { writes_per_minute_per_key: 1, writes_per_minute_per_workspace: 100, submitted_profiles_per_minute_per_workspace: 1000 },
    });
    const limitedEnv = { ...env, PROFILE_SCAN_API_KEY: limited.secret };
    const args = ['create', '--name', 'Limited', '--company', 'Acme', '--domain', 'acme.com', '--company-url', 'https://pronet.example/company/acme'];
    assert.equal((await cli([...args, '--json'], limitedEnv)).code, 0);
    const second = await cli([...args, '--json', '--max-wait', '0'], limitedEnv);
    assert.equal(second.code, 4, second.stdout);
    assert.equal(second.json.error.code, 'rate_limited');
    assert.equal(second.json.error.retryable, true);
    const human = await cli([...args, '--max-wait', '0'], limitedEnv);
    assert.equal(human.code, 4);
    assert.match(human.stderr, /429 rate_limited: .*retry after \d+ s/);

    const closed = await cli(['context', '--json'], { ...env, PROFILE_SCAN_BASE_URL: 'http://127.0.0.1:9' });
    assert.equal(closed.code, 5, closed.stdout);
    assert.equal(closed.json.error.code, 'connection_error');
  });
});
