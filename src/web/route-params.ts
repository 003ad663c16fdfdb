/**
 * Path parameters of the web's pages: ids, each a UUID by the API's own
 * schema block (domain/schemas/common.ts), or the token of a one-time link or
 * of a public report, and nothing else.
 */
import { Type } from '@sinclair/typebox';
import { Uuid } from '../domain/schemas/common.js';

export const idParams = (...names: string[]) => Type.Object(Object.fromEntries(names.map((n) => [n, Uuid])), { additionalProperties: false });

/** A one-time link's or a public report's token (base64url, as newPublicToken and the link tokens are made). */
export const tokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }) }, { additionalProperties: false });

/** A private link's evidence image: the link's token and the image's id. */
export const tokenImageParams = Type.Object({ token: tokenParams.properties.token, image_id: Uuid }, { additionalProperties: false });

/** A report's private link: both ids. */
export const linkIdParams = idParams('report_id', 'link_id');
