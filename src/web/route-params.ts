/**
 * Path parameters of the web's pages: ids only, each a UUID by the API's own
 * schema block (domain/schemas/common.ts), and nothing else.
 */
import { Type } from '@sinclair/typebox';
import { Uuid } from '../domain/schemas/common.js';

export const idParams = (...names: string[]) => Type.Object(Object.fromEntries(names.map((n) => [n, Uuid])), { additionalProperties: false });
