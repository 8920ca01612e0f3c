/**
 * The one renderer of Herald's emails: templates, `/v1/send` bodies, campaigns and
 * workflow emails all go through `compileEmail` and `renderEmail` (WEBHOOK step bodies
 * through `renderTemplate`).
 *
 * Language: LiquidJS plus the SPEC forms `{{ key ?? 'fallback' }}` and `{{first name}}`
 * (see `herald-syntax.ts`). Output in HTML bodies is HTML-escaped, so contact data (which
 * anyone with the public key can set) never becomes markup; `{{ key | raw }}` inserts a
 * value as it is. Subjects and WEBHOOK bodies are not escaped, and the plain-text part is
 * made from the HTML, entities decoded. `{% include %}`, `{% render %}` and `{% layout %}` do not exist (no file access), an
 * unknown filter is a syntax error, an unknown variable renders as nothing, and every
 * render is bounded in time, allocations and output size.
 */
import { compile as compileHtmlToText } from 'html-to-text';
import { Liquid, type Template } from 'liquidjs';
import type { ContactLinks } from '../contacts/links';
import { FALLBACK_FILTER, toLiquid } from './herald-syntax';
import { LruCache } from './lru';

/** The part of an email a template error is in. */
export type EmailPart = 'subject' | 'body';

/** A template that does not parse; `field` names the part (`subject` or `body`). */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly field?: EmailPart,
  ) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

/** A template that parsed but failed while rendering, for example by exceeding a limit. */
export class TemplateRenderError extends Error {
  constructor(
    message: string,
    readonly field: EmailPart,
  ) {
    super(message);
    this.name = 'TemplateRenderError';
  }
}

/** A parsed template with the engine that renders it; opaque to callers. */
export interface CompiledPart {
  readonly engine: Liquid;
  readonly templates: Template[];
}

/** The parsed subject and body of one email. */
export interface CompiledEmail {
  subject: CompiledPart;
  body: CompiledPart;
}

/** A rendered email: one-line subject, HTML body and its plain-text alternative. */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const LIMITS = {
  /** Characters of template source. */
  parse: 10_000_000,
  /** Milliseconds one part may take to render. */
  renderMs: 1_000,
  /** LiquidJS allocation units (range sizes, filter output lengths) per render. */
  memory: 20_000_000,
  /** Characters of rendered output per part. */
  output: 20_000_000,
};

const CACHE = { entries: 500, sourceChars: 50_000_000 };

/** A Liquid engine with its cache of parsed sources: LiquidJS applies `outputEscape` when it parses. */
interface Dialect {
  engine: Liquid;
  cache: LruCache<string, CompiledPart>;
}

function dialect(outputEscape: 'escape' | undefined): Dialect {
  const engine = new Liquid({
    strictVariables: false,
    strictFilters: true,
    ownPropertyOnly: true,
    templates: {}, // an empty in-memory file system: nothing can ever read a file
    parseLimit: LIMITS.parse,
    renderLimit: LIMITS.renderMs,
    memoryLimit: LIMITS.memory,
    outputEscape,
  });
  for (const tag of ['include', 'render', 'layout']) delete engine.tags[tag];
  engine.registerFilter(FALLBACK_FILTER, (value: unknown, fallback: unknown) =>
    value === undefined || value === null ? fallback : value,
  );
  return { engine, cache: new LruCache<string, CompiledPart>(CACHE.entries, CACHE.sourceChars) };
}

/** HTML bodies: every output is HTML-escaped unless it ends in `| raw`. */
const HTML = dialect('escape');
/** Subjects and WEBHOOK bodies: output as it is. */
const TEXT = dialect(undefined);
const DIALECTS: Record<EmailPart, Dialect> = { subject: TEXT, body: HTML };

const htmlToText = compileHtmlToText({
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

/** Parses one part in a dialect (by default the part's own), once per distinct source while it stays in the cache. */
function compilePart(source: string, field: EmailPart, { engine, cache } = DIALECTS[field]): CompiledPart {
  const cached = cache.get(source);
  if (cached) return cached;
  let part: CompiledPart;
  try {
    part = { engine, templates: engine.parse(toLiquid(source)) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TemplateSyntaxError(`Template syntax error in ${field}: ${reason}`, field);
  }
  cache.set(source, part, source.length);
  return part;
}

/** Parses the subject and body of an email; throws TemplateSyntaxError naming the part at fault. */
export function compileEmail(parts: { subject: string; body: string }): CompiledEmail {
  return { subject: compilePart(parts.subject, 'subject'), body: compilePart(parts.body, 'body') };
}

/** Checks the given parts parse (for save-time validation); throws TemplateSyntaxError. */
export function validateTemplate(parts: { subject?: string; body?: string }): void {
  if (parts.subject !== undefined) compilePart(parts.subject, 'subject');
  if (parts.body !== undefined) compilePart(parts.body, 'body');
}

/**
 * The variables of one email: the contact's data keys at top level, `data` (the same
 * values, one-off ones included), `email`, the one-off values and the contact's links.
 */
export function buildScope(input: {
  email: string;
  data: Record<string, unknown>;
  transient?: Record<string, unknown>;
  links?: ContactLinks;
}): Record<string, unknown> {
  const data = { ...input.data, ...input.transient };
  return { ...data, data, email: input.email, ...input.links };
}

/** Renders one compiled part within the limits. */
function renderPart(part: CompiledPart, scope: Record<string, unknown>, field: EmailPart): string {
  let output: string;
  try {
    // Synchronous, so the time limit measures this render alone, not other work interleaved with it.
    output = String(part.engine.renderSync(part.templates, scope));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TemplateRenderError(`Template could not be rendered (${field}): ${reason}`, field);
  }
  if (output.length > LIMITS.output) {
    throw new TemplateRenderError(`Rendered ${field} exceeds ${LIMITS.output} characters`, field);
  }
  return output;
}

/** Renders one template string that is not an email (a WEBHOOK step's `body`) within the same limits. */
export function renderTemplate(source: string, scope: Record<string, unknown>): string {
  return renderPart(compilePart(source, 'body', TEXT), scope, 'body');
}

/** The plain-text alternative of an HTML body, as `renderEmail` makes it. */
export function textOfHtml(html: string): string {
  return htmlToText(html);
}

/** Renders an email for one recipient: the subject on one line, the HTML body and a plain-text alternative. */
export async function renderEmail(compiled: CompiledEmail, scope: Record<string, unknown>): Promise<RenderedEmail> {
  const subject = renderPart(compiled.subject, scope, 'subject').replace(/\s*[\r\n]+\s*/g, ' ').trim();
  const html = renderPart(compiled.body, scope, 'body');
  return { subject, html, text: textOfHtml(html) };
}
