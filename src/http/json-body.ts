import express, { type RequestHandler } from 'express';
import { validationError, type FieldError } from './errors';

/** The deepest nesting a JSON body may have; deeper documents are refused before any code walks them. */
export const MAX_JSON_DEPTH = 64;

/** A NUL character, or a surrogate that is not half of a pair (the `u` flag matches pairs as one code point). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** Why a string cannot be stored, or undefined when it can. */
const unstorableText = (text: string) =>
  !UNSTORABLE.test(text) ? undefined : text.includes('\u0000') ? 'a NUL character (\\u0000)' : 'a lone UTF-16 surrogate (\\ud800-\\udfff)';

/** The field path of a key below `parent`, as validation errors name fields (`data.plan`, `to[0]`). */
const fieldPath = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * The first thing in a parsed JSON document that Postgres cannot store (a NUL character or a
 * lone UTF-16 surrogate, such as `"\ud800"`, in a key or string, which `text` and `jsonb`
 * refuse) or that is nested deeper than MAX_JSON_DEPTH. Walks with its own stack, so no
 * document can overflow the call stack.
 */
export function unstorable(document: unknown): FieldError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: document, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const text = typeof value === 'string' ? unstorableText(value) : undefined;
    if (text) return { field: path || 'body', code: 'invalid_string', message: `${path || 'The body'} must not contain ${text}` };
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      return { field: path || 'body', code: 'too_big', message: `The body is nested more than ${MAX_JSON_DEPTH} levels deep` };
    }
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
    for (const [key, item] of entries) {
      const itemPath = fieldPath(path, key);
      const keyText = typeof key === 'string' ? unstorableText(key) : undefined;
      if (keyText) return { field: itemPath, code: 'invalid_string', message: `The key ${JSON.stringify(itemPath)} must not contain ${keyText}` };
      stack.push({ value: item, path: itemPath, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Refuses a parsed body holding something Postgres cannot store: 422 `VALIDATION_ERROR` naming the field. */
export function assertStorable(body: unknown): void {
  const problem = unstorable(body);
  if (problem) throw validationError([problem]);
}

const storableBody: RequestHandler = (req, _res, next) => {
  assertStorable(req.body);
  next();
};

/**
 * Reads a JSON body of at most `limit` (413 `PAYLOAD_TOO_LARGE` beyond, 400 when malformed)
 * and refuses what cannot be stored. Mounted after authentication, so nobody's body is
 * read before their key or session is accepted.
 */
export function jsonBody(limit: string | number): RequestHandler[] {
  return [express.json({ limit }), storableBody];
}
