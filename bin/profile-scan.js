#!/usr/bin/env node
// Entry point of the `profile-scan` command: runs the compiled JavaScript in
// dist/ (`npm run build`; `npm ci` and `npm start` build it). The long-running
// roles get their signal handlers before anything else is loaded, so a
// SIGTERM during start-up is handled, never fatal (src/cli/lifecycle.ts).
//
// libuv's thread pool: 8 threads unless UV_THREADPOOL_SIZE says otherwise
// (libuv's own default is 4). sharp runs every image operation on that pool
// (the simulator's renders, decoding, WebP previews), and so does every file
// operation, among them the evidence pipeline's durable writes: each blob is
// fsynced, then its directory. A thread waiting on the disk is a thread no
// image operation can use, and with 4 a worker left its cores idle: the image
// work alone, run as a worker runs it, kept 0.84-0.90 of the two cores of the
// development machine busy with 4 threads and 0.89-0.94 with 8 or more, in
// the same rounds (bench/image-cost.ts), and a worker drained 2-6 % more items
// per second in each of three pairs of bench:pipeline runs (docs/benchmarks.md,
// "The floor pipeline, and libuv's thread pool"). What it trades: four more
// threads (stack reserved, not used) in each process, and twice as many image
// operations let through the image gate at once (src/scanning/media/image-work.ts).
//
// This file is CommonJS (bin/package.json) for that setting alone: libuv sizes
// its pool once, when it is first used, and an ES module entry is read through
// that pool before its first line runs. A CommonJS entry is read synchronously,
// so the size set here is the one the pool gets.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

process.env.UV_THREADPOOL_SIZE ||= '8';

const dist = path.join(__dirname, '..', 'dist');
const main = path.join(dist, 'cli', 'main.js');
if (!existsSync(main)) {
  console.error('profile-scan: the compiled build (dist/) is missing; run `npm run build` (npm ci does it)');
  process.exit(1);
}
(async () => {
  if (process.argv[2] === 'serve' || process.argv[2] === 'worker') {
    const { installSignalHandlers } = await import(pathToFileURL(path.join(dist, 'cli', 'lifecycle.js')).href);
    installSignalHandlers();
  }
  await import(pathToFileURL(main).href);
})().catch((error) => {
  // What an ES module entry's top-level await would do with it: print it and fail.
  console.error(error);
  process.exit(1);
});
