import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors';

/** Turns positions of one list into opaque cursors and back. */
export interface ListCursors<C> {
  encode(position: C): string;
  /** The position a cursor names; a 400 for any cursor this list did not hand out. */
  decode(cursor: string): C;
}

const invalidCursor = () => badRequest('The cursor is not valid; pass the cursor from the previous response unchanged');

/**
 * Cursors signed with TOKEN_SECRET for the list that issued them (`<position>.<signature>`),
 * so a tampered, made-up or other list's cursor is a 400 before any query sees its values.
 */
export class Cursors {
  constructor(private readonly secret: string) {}

  /** The cursors of one list; `list` names it and its order, e.g. `contacts:email`. */
  for<C>(list: string): ListCursors<C> {
    const sign = (payload: string) => createHmac('sha256', this.secret).update(`cursor:${list}:${payload}`).digest().subarray(0, 16);
    return {
      encode: (position) => {
        const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
        return `${payload}.${sign(payload).toString('base64url')}`;
      },
      decode: (cursor) => {
        const [payload, signature, extra] = cursor.split('.');
        const given = Buffer.from(signature ?? '', 'base64url');
        const expected = sign(payload);
        if (extra !== undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as C;
      },
    };
  }
}
