/**
 * The command's entry sizes libuv's thread pool before anything uses it
 * (bin/profile-scan.js requires bin/thread-pool.js first): 8 threads unless
 * UV_THREADPOOL_SIZE is set, and the operator's size when it is. Read from outside, as the threads of started
 * `profile-scan worker` processes (/proc/<pid>/task): an idle worker has run
 * no image operation, so libvips has started none of its own threads, and
 * the rest are Node's, the same in every process of one Node.js.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../support/app.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

describe("libuv's thread pool of a profile-scan process", () => {
  let t: TestApp;
  const workers: WorkerProcess[] = [];
  const threads: Record<string, number> = {};

  before(async () => {
    t = await startTestApp();
    for (const size of [undefined, '4', '8', '16']) {
      const worker = await startWorkerProcess(t, { concurrency: 1, env: { UV_THREADPOOL_SIZE: size } });
      workers.push(worker);
      threads[size ?? 'unset'] = fs.readdirSync(`/proc/${worker.child.pid}/task`).length;
    }
  });
  after(async () => {
    await stopWorkerProcesses(workers);
    await t?.close();
  });

  test('without UV_THREADPOOL_SIZE the pool has 8 threads: four more than with 4, as many as with 8', () => {
    assert.equal(threads.unset - threads['4'], 4, JSON.stringify(threads));
    assert.equal(threads.unset, threads['8'], JSON.stringify(threads));
  });

  test("an operator's UV_THREADPOOL_SIZE is the pool's size", () => {
    assert.equal(threads['16'] - threads['4'], 12, JSON.stringify(threads));
  });
});
