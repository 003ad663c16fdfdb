#!/usr/bin/env node
// Entry point of the `profile-scan` command: runs the compiled JavaScript in
// dist/ (`npm run build`; `npm ci` and `npm start` build it). The long-running
// roles get their signal handlers before anything else is loaded, so a
// SIGTERM during start-up is handled, never fatal (src/cli/lifecycle.ts).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('profile-scan: the compiled build (dist/) is missing; run `npm run build` (npm ci does it)');
  process.exit(1);
}
if (process.argv[2] === 'serve' || process.argv[2] === 'worker') {
  const { installSignalHandlers } = await import('../dist/cli/lifecycle.js');
  installSignalHandlers();
}
await import(main.href);
