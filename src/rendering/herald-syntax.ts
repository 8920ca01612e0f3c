/**
 * Herald's additions to Liquid output tags, rewritten into plain Liquid before parsing:
 *
 * - `{{ a ?? 'x' }}` -> `{{ a | fallback: 'x' }}`: the fallback applies only when `a` is
 *   missing or null. Chains (`a ?? b ?? 'x'`) and filters after the fallback
 *   (`{{ a ?? 'x' | capitalize }}`) work; `??` after a filter is a syntax error.
 * - `{{first name}}` (words of letters, digits, `_` or `-` separated by spaces) ->
 *   `{{ data['first name'] }}`, for keys with spaces such as CSV headers.
 * - `{{ a | escape }}` (or `escape_once`) -> `{{ a | escape | raw }}`: a value escaped by
 *   hand is not escaped a second time where output is HTML-escaped (HTML bodies).
 *
 * The scanner follows LiquidJS's own tokenizer: output tags end at the first `}}` outside
 * quotes, other tags at the first `%}`, and `{% raw %}` blocks are copied untouched.
 */

/** The filter a `??` becomes; registered on the engine. */
export const FALLBACK_FILTER = 'fallback';

const RAW_OPEN = /^\{%-?\s*raw\s*-?%\}/;
const RAW_CLOSE = /\{%-?\s*endraw\s*-?%\}/g;
const SPACED_KEY = /^[\p{L}\p{N}_-]+(?:\s+[\p{L}\p{N}_-]+)+$/u;
const ESCAPING_FILTER = /^\s*(escape|escape_once)\s*$/;

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
  const escaped = filters.length > 0 && ESCAPING_FILTER.test(filters[filters.length - 1]);
  if (operands.length === 1 && !SPACED_KEY.test(expression.trim()) && !escaped) return inner;
  const [value, ...fallbacks] = operands.map((text) => operand(text, tag));
  const pipeline = [value, ...fallbacks.map((fallback) => `${FALLBACK_FILTER}: ${fallback}`), ...filters.map((filter) => filter.trim())];
  const rewritten = [...pipeline, ...(escaped ? ['raw'] : [])].join(' | ');
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

/** A piece of template source: text, an output tag `{{ ... }}`, or any other tag (a whole `{% raw %}` block is one). */
export interface Segment {
  kind: 'text' | 'output' | 'tag';
  source: string;
}

/** The kind and end (index after it) of the tag starting at `start`: undefined when none does, end -1 when unclosed. */
function tagAt(source: string, start: number): { kind: Segment['kind']; end: number } | undefined {
  if (source.startsWith('{{', start)) return { kind: 'output', end: outputEnd(source, start + 2) };
  if (!source.startsWith('{%', start)) return undefined;
  const close = source.indexOf('%}', start + 2);
  if (close === -1 || !RAW_OPEN.test(source.slice(start, close + 2))) return { kind: 'tag', end: close === -1 ? -1 : close + 2 };
  RAW_CLOSE.lastIndex = close + 2;
  const endRaw = RAW_CLOSE.exec(source);
  return { kind: 'tag', end: endRaw ? endRaw.index + endRaw[0].length : source.length };
}

/** Splits template source into text and tags as LiquidJS's tokenizer does; an unclosed tag and all after it is text. */
export function segments(source: string): Segment[] {
  const parts: Segment[] = [];
  let from = 0;
  for (let next = source.indexOf('{'); next !== -1; next = source.indexOf('{', next + 1)) {
    const tag = tagAt(source, next);
    if (!tag) continue;
    if (tag.end === -1) break;
    if (next > from) parts.push({ kind: 'text', source: source.slice(from, next) });
    parts.push({ kind: tag.kind, source: source.slice(next, tag.end) });
    from = tag.end;
    next = tag.end - 1;
  }
  if (from < source.length) parts.push({ kind: 'text', source: source.slice(from) });
  return parts;
}

/** Rewrites Herald's template forms into plain Liquid; anything it does not recognise is left for Liquid to judge. */
export function toLiquid(source: string): string {
  return segments(source)
    .map((part) => (part.kind === 'output' ? `{{${rewriteOutput(part.source.slice(2, -2), part.source)}}}` : part.source))
    .join('');
}
