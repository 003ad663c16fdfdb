#!/usr/bin/env node
// Entry point of the `profile-scan` command: runs the TypeScript sources
// through tsx's loader (a dependency), so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
