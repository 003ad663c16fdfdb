/**
 * The one cursor module (decisions "Reading"): a cursor is a JWS (HS256)
 * compact token — base64url JSON payload plus an HMAC-SHA256 tag with a
 * secret shared by every instance — signed with node:crypto (the token jose
 * would write) and verified with `jose`.
 * It binds workspace, route, filters (and limit/revision where the contract
 * says so), the first page's watermark, the last key and the issue time.
 * Any tampering or a changed binding is `invalid_cursor`.
 */
import { compactVerify } from 'jose';
import { createHash, createHmac } from 'node:crypto';

export const MAX_CURSOR_LENGTH = 2048;

const JWS_HS256_HEADER = Buffer.from('{"alg":"HS256"}', 'utf8').toString('base64url');

export interface CursorBinding {
  workspace: string;
  route: string;
  /** Filters (and other bound parameters), compared by canonical hash. */
  filters: Record<string, unknown>;
}

export interface CursorState {
  /** Upper watermark of the first page (ISO instant). */
  watermark: string;
  /** The last key of the previous page. */
  last: (string | number)[];
  /** Issue time (ms since epoch). */
  issuedAt: number;
  /** Extra bound values, e.g. a collection revision. */
  extra?: Record<string, unknown>;
}

export class CursorError extends Error {
  constructor(readonly reason: 'invalid' | 'expired') {
    super(reason);
  }
}

function bindingHash(binding: CursorBinding): string {
  const filters = Object.keys(binding.filters)
    .sort()
    .map((k) => [k, binding.filters[k] ?? null]);
  return createHash('sha256')
    .update(JSON.stringify([binding.workspace, binding.route, filters]))
    .digest('base64url')
    .slice(0, 22);
}

export class CursorCodec {
  private readonly key: Uint8Array;
  constructor(secret: string) {
    this.key = new Uint8Array(createHash('sha256').update(`cursor:${secret}`).digest());
  }

  async encode(binding: CursorBinding, state: CursorState): Promise<string> {
    const payload = JSON.stringify({ b: bindingHash(binding), w: state.watermark, l: state.last, t: state.issuedAt, x: state.extra });
    // The compact JWS that jose's CompactSign writes for { alg: 'HS256' }, byte for byte, signed with
    // node:crypto: jose signs through WebCrypto, which imports the key and hops to the thread pool for
    // every cursor, a cost every findings page with a next page would pay.
    const signed = `${JWS_HS256_HEADER}.${Buffer.from(payload, 'utf8').toString('base64url')}`;
    const token = `${signed}.${createHmac('sha256', this.key).update(signed).digest('base64url')}`;
    if (token.length > MAX_CURSOR_LENGTH) throw new Error('cursor too long');
    return token;
  }

  /** Verifies and unpacks a cursor; throws CursorError('invalid') on any mismatch. */
  async decode(cursor: string, binding: CursorBinding, options: { maxAgeMs?: number; now?: Date } = {}): Promise<CursorState> {
    if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw new CursorError('invalid');
    // Only the canonical spelling of the tag is accepted (its last base64url
    // character has spare bits a decoder would otherwise ignore).
    const tag = cursor.slice(cursor.lastIndexOf('.') + 1);
    if (Buffer.from(tag, 'base64url').toString('base64url') !== tag) throw new CursorError('invalid');
    let payload: { b?: unknown; w?: unknown; l?: unknown; t?: unknown; x?: unknown };
    try {
      const { payload: bytes } = await compactVerify(cursor, this.key, { algorithms: ['HS256'] });
      payload = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new CursorError('invalid');
    }
    if (payload.b !== bindingHash(binding)) throw new CursorError('invalid');
    if (typeof payload.w !== 'string' || !Array.isArray(payload.l) || typeof payload.t !== 'number') throw new CursorError('invalid');
    if (options.maxAgeMs !== undefined && options.now && options.now.getTime() - payload.t > options.maxAgeMs) {
      throw new CursorError('expired');
    }
    return {
      watermark: payload.w,
      last: payload.l as (string | number)[],
      issuedAt: payload.t,
      extra: (payload.x as Record<string, unknown> | undefined) ?? undefined,
    };
  }
}
