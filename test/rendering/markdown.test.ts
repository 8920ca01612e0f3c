import { markdownToHtml } from '../../src/rendering/markdown';
import { buildScope, compileEmail, renderEmail } from '../../src/rendering/renderer';

describe('markdownToHtml', () => {
  it('keeps Liquid tags as written: quotes, comparisons and raw blocks', async () => {
    const source = "# Hi {{data['first name']}}\n\n{{ name ?? 'friend' }} & {% if n > 1 %}many{% endif %} {% raw %}{{ x }}{% endraw %}";
    expect(await markdownToHtml(source)).toBe(
      "<h1>Hi {{data['first name']}}</h1>\n<p>{{ name ?? 'friend' }} &amp; {% if n > 1 %}many{% endif %} {% raw %}{{ x }}{% endraw %}</p>\n",
    );
  });

  it('keeps a tag inside a link target, and converts the Markdown around it', async () => {
    expect(await markdownToHtml('See **[your plan]({{ planUrl }})**')).toBe('<p>See <strong><a href="{{ planUrl }}">your plan</a></strong></p>\n');
  });

  it('renders to escaped HTML for each recipient', async () => {
    const html = await markdownToHtml("Hello {{data['first name']}}, {{ nickname ?? 'friend' }}");
    const scope = buildScope({ email: 'a@example.com', data: { 'first name': '<b>Ada</b>', nickname: null } });
    expect((await renderEmail(compileEmail({ subject: 'x', body: html }), scope)).html).toBe('<p>Hello &lt;b&gt;Ada&lt;/b&gt;, friend</p>\n');
  });
});
