/**
 * Generates packages/client/src/openapi-types.ts from the OpenAPI document the server
 * serves (scripts/openapi-document.ts), with openapi-typescript. The typed
 * client (packages/client) takes its request and response types from it, so the
 * client cannot drift from the API. test/unit/openapi-client-types.test.ts
 * fails when the committed file differs from what this generates.
 *
 * Usage: npm run gen:client-types
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApiDocument } from './openapi-document.js';

export const CLIENT_TYPES_PATH = fileURLToPath(new URL('../packages/client/src/openapi-types.ts', import.meta.url));

const HEADER = `/**
 * Types of the profile-scan API v1, generated from its OpenAPI document by
 * openapi-typescript (scripts/gen-client-types.ts). Do not edit by hand:
 * run \`npm run gen:client-types\` after changing a route or schema.
 */

`;

export async function generateClientTypes(): Promise<string> {
  const document = await buildOpenApiDocument();
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: true, defaultNonNullable: false });
  return HEADER + astToString(ast);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CLIENT_TYPES_PATH, await generateClientTypes());
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
}
