/**
 * Herald's additions to Liquid output tags, rewritten into plain Liquid before parsing:
 *
 * - `{{ a ?? 'x' }}` -> `{{ a | fallback: 'x' }}`: the fallback applies only when `a` is
 *   missing or null. Chains (`a ?? b ?? 'x'`) and filters after the fallback
 *   (`{{ a ?? 'x' | capitalize }}`) work; `??` after a filter is a syntax error.
 * - `{{first name}}` (words of letters, digits, `_` or `-` separated by spaces) ->
 *   `{{ data['first name'] }}`, for keys with spaces such as CSV headers.
 *
 * The scanner follows LiquidJS's own tokenizer: output tags end at the first `}}` outside
 * quotes, other tags at the first `%}`, and `{% raw %}` blocks are copied untouched.
 */

/** The filter a `??` becomes; registered on the engine. */
export const FALLBACK_FILTER = 'fallback';

const RAW_OPEN = /^\{%-?\s*raw\s*-?%\}/;
const RAW_CLOSE = /\{%-?\s*endraw\s*-?%\}/g;
const SPACED_KEY = /^[\p{L}\p{N}_-]+(?:\s+[\p{L}\p{N}_-]+)+$/u;

/** The index after the quoted string that starts at `start`, or the end of the text when unterminated. */
function skipQuoted(text: string, start: number): number {
  const end = text.indexOf(text[start], start + 1);
  return end === -1 ? text.length : end + 1;
}

/** Splits `text` at every `separator` that is outside quotes, brackets and parentheses. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"' || char === "'") {
      i = skipQuoted(text, i);
      continue;
    }
    if (char === '[' || char === '(') depth += 1;
    else if ((char === ']' || char === ')') && depth > 0) depth -= 1;
    else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(from, i));
      i += separator.length;
      from = i;
      continue;
    }
    i += 1;
  }
  parts.push(text.slice(from));
  return parts;
}

/** One operand of an output expression: a spaced key becomes a `data[...]` lookup. */
function operand(text: string, tag: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error(`"??" needs a value on each side in ${tag}`);
  return SPACED_KEY.test(trimmed) ? `data['${trimmed}']` : trimmed;
}

/** Rewrites the inside of one `{{ ... }}` tag; returns it unchanged when it uses no Herald form. */
function rewriteOutput(inner: string, tag: string): string {
  const trimLeft = inner.startsWith('-');
  const trimRight = inner.endsWith('-') && inner.length > (trimLeft ? 1 : 0);
  const content = inner.slice(trimLeft ? 1 : 0, trimRight ? -1 : undefined);
  const [expression, ...filters] = splitTopLevel(content, '|');
  if (filters.some((filter) => splitTopLevel(filter, '??').length > 1)) {
    throw new Error(`"??" must come before any filter in ${tag}`);
  }
  const operands = splitTopLevel(expression, '??');
  if (operands.length === 1 && !SPACED_KEY.test(expression.trim())) return inner;
  const [value, ...fallbacks] = operands.map((text) => operand(text, tag));
  const pipeline = [value, ...fallbacks.map((fallback) => `${FALLBACK_FILTER}: ${fallback}`)];
  const rewritten = [...pipeline, ...filters.map((filter) => filter.trim())].join(' | ');
  return `${trimLeft ? '-' : ''} ${rewritten} ${trimRight ? '-' : ''}`;
}

/** The end of the output tag whose content starts at `from` (index after `}}`), or -1 when unclosed. */
function outputEnd(source: string, from: number): number {
  let i = from;
  while (i < source.length) {
    const char = source[i];
    if (char === '"' || char === "'") i = skipQuoted(source, i);
    else if (source.startsWith('}}', i)) return i + 2;
    else i += 1;
  }
  return -1;
}

/** Rewrites Herald's template forms into plain Liquid; anything it does not recognise is left for Liquid to judge. */
export function toLiquid(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const next = source.indexOf('{', i);
    if (next === -1) break;
    out += source.slice(i, next);
    if (source.startsWith('{{', next)) {
      const end = outputEnd(source, next + 2);
      if (end === -1) return out + source.slice(next);
      const tag = source.slice(next, end);
      out += `{{${rewriteOutput(source.slice(next + 2, end - 2), tag)}}}`;
      i = end;
    } else if (source.startsWith('{%', next)) {
      const close = source.indexOf('%}', next + 2);
      if (close === -1) return out + source.slice(next);
      let end = close + 2;
      if (RAW_OPEN.test(source.slice(next, end))) {
        RAW_CLOSE.lastIndex = end;
        const endRaw = RAW_CLOSE.exec(source);
        end = endRaw ? endRaw.index + endRaw[0].length : source.length;
      }
      out += source.slice(next, end);
      i = end;
    } else {
      out += '{';
      i = next + 1;
    }
  }
  return out + source.slice(i);
}
