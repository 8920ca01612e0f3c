import { randomBytes } from 'node:crypto';
import { marked } from 'marked';
import { segments } from './herald-syntax';

/**
 * Converts a Markdown body to HTML with its Liquid tags kept exactly as written: Markdown
 * would escape their quotes and `>` (`{{ data['first name'] }}` would no longer parse) and
 * break links around them. Each tag is swapped for a placeholder of letters and digits,
 * which Markdown leaves alone, and put back afterwards.
 */
export async function markdownToHtml(source: string): Promise<string> {
  const marker = `herald${randomBytes(6).toString('hex')}x`;
  const tags: string[] = [];
  const shielded = segments(source)
    .map((part) => (part.kind === 'text' ? part.source : `${marker}${tags.push(part.source) - 1}x`))
    .join('');
  const html = await marked.parse(shielded);
  return html.replace(new RegExp(`${marker}(\\d+)x`, 'g'), (_, index: string) => tags[Number(index)]);
}
