/**
 * The HTTP body of a findings page (GET /reports/{id}/analysis/profiles),
 * written as bytes: the API's one response not serialized by Fastify, because
 * its records arrive as UTF-8 JSON already (use-cases/read-analysis.ts
 * pageOfFindingsText, domain/findings-text.ts) and a page can be megabytes.
 *
 * What it trades: the body's envelope is written here by hand, so it must stay
 * what the FindingsPage schema's serializer would write. test/api/reads-exact-across-servers.test.ts
 * checks these bytes against that serializer's output for the same page.
 */
import type { CollectionPage, RecordJson } from '../use-cases/read-analysis.js';

const OPEN = Buffer.from('{"data":[');
const COMMA = 0x2c;

/**
 * The response body of a findings page: the envelope (FindingsPage's members
 * in schema order) written around the records, each written once into one
 * buffer of the body's size (no string of the whole page built and encoded again, no
 * intermediate copies). test/api/reads-exact-across-servers.test.ts checks these bytes
 * against what the schema's serializer writes for the same page.
 */
export function findingsPageBody(page: CollectionPage<RecordJson>, requestId: string): Buffer {
  const close = Buffer.from(
    `],"revision":${JSON.stringify(page.revision)},"next_cursor":${JSON.stringify(page.next_cursor)},"request_id":${JSON.stringify(requestId)}}`,
  );
  const size = page.data.reduce((sum, record) => sum + record.length, OPEN.length + Math.max(0, page.data.length - 1) + close.length);
  const body = Buffer.allocUnsafe(size);
  let at = OPEN.copy(body, 0);
  page.data.forEach((record, i) => {
    if (i > 0) body[at++] = COMMA;
    at += record.writeTo(body, at);
  });
  at += close.copy(body, at);
  if (at !== size) throw new Error(`findings page body: wrote ${at} bytes of ${size}`);
  return body;
}
