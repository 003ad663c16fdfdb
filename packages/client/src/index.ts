/**
 * `@profile-scan/client`: the typed client of the profile-scan API v1 and the
 * analysis reconciliation built on it. Runtime dependency-free (global
 * `fetch`, Node 20+ or any runtime with fetch and web streams). Guide:
 * docs/client.md; reconciliation: docs/reconciliation.md.
 */
export { ProfileScanClient, createClient, newIdempotencyKey } from './client.js';
export type {
  ClientOptions,
  CollectionPage,
  EvidenceDownload,
  ListPage,
  Traversal,
  TraversalOptions,
  TraversalPage,
  WaitOptions,
  WriteOptions,
  WriteResult,
} from './client.js';
export * from './errors.js';
export { jittered, type FetchLike, type FetchInit, type RequestEvent, type TransportOptions } from './transport.js';
export * from './types.js';
export {
  COLLECTIONS,
  createAnalysisClient,
  deserializeState,
  emptyState,
  reconcile,
  serializeState,
  type AnalysisClient,
  type AnalysisClientOptions,
  type CollectionOutcome,
  type CollectionState,
  type CollectionStatus,
  type LocalState,
  type ReconcileOptions,
  type ReconcileResult,
  type SerializedState,
} from './reconcile.js';
export type { components, operations, paths } from './openapi-types.js';
export {
  EXPECTED_URL_HEADERS,
  batchKey,
  batchesOf,
  isUrlHeader,
  profileUrlOf,
  readPeopleSheet,
  type IgnoredColumn,
  type Sheet,
  type SheetOptions,
  type SheetPerson,
  type SheetProblem,
  type UrlKind,
} from './people-sheet.js';
