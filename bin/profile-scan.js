#!/usr/bin/env node
// Entry point of the `profile-scan` command: runs the compiled JavaScript in
// dist/ (`npm run build`; `npm ci` and `npm start` build it). The long-running
// roles get their signal handlers before anything else is loaded, so a
// SIGTERM during start-up is handled, never fatal (src/cli/lifecycle.ts).
//
// It is CommonJS (bin/package.json) so that libuv's thread pool is sized
// before anything uses the pool (bin/thread-pool.js, required first).
'use strict';
require('./thread-pool.js');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

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
