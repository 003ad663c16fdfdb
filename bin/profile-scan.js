#!/usr/bin/env node
// Entry point of the `profile-scan` command: runs the TypeScript sources
// through tsx's loader (a dependency), so no build step is needed.
import { register } from 'tsx/esm/api';

register();
// `client` loads only the API client (no server modules): a much faster start.
await import(process.argv[2] === 'client' ? '../src/cli/client-main.ts' : '../src/cli/main.ts');
