#!/usr/bin/env node
// The spreadsheet rules have one source, src/domain/people-sheet.ts. The API
// client package (packages/client) is a package of its own that imports
// nothing of the server, and its compiler cannot take a file from outside its
// `src/` (rootDir) without changing the layout it publishes; so its
// packages/client/src/people-sheet.ts is written from the one source here,
// before the client is compiled (scripts/build.mjs, and the client's own
// `npm run build`). The written file is checked in, so that a fresh clone
// type-checks, and test/unit/people-sheet.test.ts fails while it differs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SHEET_SOURCE = path.join(root, 'src', 'domain', 'people-sheet.ts');
export const SHEET_COPY = path.join(root, 'packages', 'client', 'src', 'people-sheet.ts');

/** Writes the client's copy of the spreadsheet rules when it differs from the source; true when it wrote. */
export function writeClientSheet(target = SHEET_COPY) {
  const source = fs.readFileSync(SHEET_SOURCE, 'utf8');
  if (fs.existsSync(target) && fs.readFileSync(target, 'utf8') === source) return false;
  fs.writeFileSync(target, source);
  return true;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (writeClientSheet()) console.error(`wrote ${path.relative(root, SHEET_COPY)} from ${path.relative(root, SHEET_SOURCE)}`);
}
