import { Liquid } from 'liquidjs';
import { toLiquid } from '../../src/rendering/herald-syntax';
import {
  buildScope,
  compileEmail,
  renderEmail,
  renderTemplate,
  TemplateRenderError,
  TemplateSyntaxError,
  validateTemplate,
} from '../../src/rendering/renderer';

const links = {
  unsubscribeUrl: 'https://herald.test/unsubscribe/t0k',
  subscribeUrl: 'https://herald.test/subscribe/t0k',
  manageUrl: 'https://herald.test/manage/t0k',
};

const contactData = {
  name: 'ada',
  'first name': 'Ada',
  profile: { tier: 'gold' },
  empty: '',
  zero: 0,
  no: false,
  nothing: null,
  items: [
    { title: 'Compass', price: 12 },
    { title: 'Lamp', price: 30 },
  ],
};

const scope = buildScope({ email: 'ada@example.com', data: contactData, transient: { coupon: 'WELCOME10' }, links });

/** Renders a body for the test contact. */
async function body(source: string, variables = scope): Promise<string> {
  return (await renderEmail(compileEmail({ subject: 'x', body: source }), variables)).html;
}

function syntaxErrorOf(parts: { subject?: string; body?: string }): TemplateSyntaxError {
  try {
    validateTemplate(parts);
  } catch (error) {
    if (error instanceof TemplateSyntaxError) return error;
    throw error;
  }
  throw new Error('expected a TemplateSyntaxError');
}

describe('buildScope', () => {
  it('puts data keys and one-off values at top level and under data, with email and the links', () => {
    expect(scope).toEqual({
      ...contactData,
      coupon: 'WELCOME10',
      data: { ...contactData, coupon: 'WELCOME10' },
      email: 'ada@example.com',
      ...links,
    });
  });

  it('keeps email and data authoritative over data keys of the same name', () => {
    const built = buildScope({ email: 'real@example.com', data: { email: 'fake', data: 'fake' } });
    expect(built.email).toBe('real@example.com');
    expect(built.data).toEqual({ email: 'fake', data: 'fake' });
  });
});

describe('renderEmail', () => {
  it('interpolates a field, a nested field, email, one-off values and the links', async () => {
    expect(await body('{{name}} {{ profile.tier }} {{email}} {{coupon}} {{data.coupon}}')).toBe(
      'ada gold ada@example.com WELCOME10 WELCOME10',
    );
    expect(await body('<a href="{{ unsubscribeUrl }}">x</a> {{subscribeUrl}} {{manageUrl}}')).toBe(
      `<a href="${links.unsubscribeUrl}">x</a> ${links.subscribeUrl} ${links.manageUrl}`,
    );
  });

  it('reads keys with spaces as {{first name}} and {{data[\'first name\']}}', async () => {
    expect(await body("{{first name}}|{{ first name }}|{{data['first name']}}|{{ data[\"first name\"] }}")).toBe(
      'Ada|Ada|Ada|Ada',
    );
  });

  it('uses the ?? fallback only for a missing or null value', async () => {
    expect(await body("{{ missing ?? 'M' }}|{{ nothing ?? 'N' }}|{{ profile.nope ?? 'P' }}")).toBe('M|N|P');
    expect(await body("[{{ empty ?? 'E' }}]|{{ zero ?? 'Z' }}|{{ no ?? 'F' }}|{{ name ?? 'X' }}")).toBe('[]|0|false|ada');
    expect(await body('{{name??"x"}}|{{missing??"x"}}')).toBe('ada|x');
  });

  it('chains fallbacks, falls back to variables, and applies filters after the fallback', async () => {
    expect(await body("{{ missing ?? nothing ?? name ?? 'x' }}")).toBe('ada');
    expect(await body("{{ missing ?? 'friend' | capitalize }}|{{ name ?? 'friend' | upcase }}")).toBe('Friend|ADA');
    expect(await body("{{ nick ?? first name }}|{{ first name ?? 'x' | upcase }}")).toBe('Ada|ADA');
  });

  it('treats ?? and | inside quotes as text', async () => {
    expect(await body("{{ missing ?? 'a ?? b | c' }}")).toBe('a ?? b | c');
    expect(await body("{{ missing ?? 'x}}y' }}")).toBe('x}}y');
  });

  it('keeps whitespace control and leaves {% raw %} blocks alone', async () => {
    expect(await body("a  {{- missing ?? 'x' -}}  b")).toBe('axb');
    expect(await body('{% raw %}{{ a ?? b }}{% endraw %}')).toBe('{{ a ?? b }}');
  });

  it('supports conditionals, loops and filters', async () => {
    const source = [
      '{% if profile.tier == "gold" %}Gold{% else %}Basic{% endif %}',
      '{% for item in items %}<li>{{ forloop.index }}. {{ item.title | upcase }}: {{ item.price }}</li>{% endfor %}',
      "{{ name | capitalize }} {{ missing | default: 'there' }} {{ items | map: 'title' | join: ', ' }}",
    ].join('\n');
    expect(await body(source)).toBe(
      'Gold\n<li>1. COMPASS: 12</li><li>2. LAMP: 30</li>\nAda there Compass, Lamp',
    );
  });

  it('renders an unknown variable as nothing', async () => {
    expect(await body('[{{ unknown }}][{{ unknown.deeper }}]')).toBe('[][]');
  });
});

describe('HTML escaping', () => {
  const link = '<a href="https://evil.test">win</a>';
  const escaped = '&lt;a href=&#34;https://evil.test&#34;&gt;win&lt;/a&gt;';
  const hostile = buildScope({ email: 'a@example.com', data: { bio: link, 'first name': link, nested: { bio: link } }, transient: { once: link } });
  const render = (parts: { subject: string; body: string }) => renderEmail(compileEmail(parts), hostile);

  it('escapes every form of output in an HTML body', async () => {
    const source = "{{ bio }}|{{bio}}|{{ nested.bio }}|{{first name}}|{{data['first name']}}|{{ missing ?? bio }}|{{ nothing ?? once }}|{% echo bio %}|{{ data.once }}";
    expect(await body(source, hostile)).toBe(Array(9).fill(escaped).join('|'));
  });

  it('escapes inside attributes, so a value cannot leave its quotes', async () => {
    const quoted = buildScope({ email: 'a@example.com', data: { url: '" onclick="alert(1)' } });
    expect(await body('<a href="{{ url }}">x</a>', quoted)).toBe('<a href="&#34; onclick=&#34;alert(1)">x</a>');
  });

  it('outputs a value as it is with | raw, and escapes a value escaped by hand only once', async () => {
    expect(await body('{{ bio | raw }}|{{ missing ?? bio | raw }}|{{ bio | escape }}|{{ bio | escape_once }}', hostile)).toBe(
      `${link}|${link}|${escaped}|${escaped}`,
    );
  });

  it('leaves the subject and the plain-text part unescaped', async () => {
    const rendered = await render({ subject: 'About {{ bio }}', body: '<p>{{ bio }}</p>' });
    expect(rendered.subject).toBe(`About ${link}`);
    expect(rendered.html).toBe(`<p>${escaped}</p>`);
    expect(rendered.text).toBe(link);
  });

  it('does not escape a WEBHOOK body, even one already compiled as an email body', async () => {
    await render({ subject: 'x', body: '{"bio": "{{ bio }}"}' });
    expect(renderTemplate('{"bio": "{{ bio }}"}', hostile)).toBe(`{"bio": "${link}"}`);
  });

  it('renders the subject on one line', async () => {
    const compiled = compileEmail({ subject: 'Hello {{ first name }},\r\n  your\n\norder  ', body: '' });
    expect((await renderEmail(compiled, scope)).subject).toBe('Hello Ada, your order');
  });

  it('generates a plain-text alternative from the HTML', async () => {
    const compiled = compileEmail({
      subject: 'x',
      body:
        '<html><head><style>p { color: red }</style></head><body><h1>Hi {{ first name }}</h1>' +
        '<p>Your <b>plan</b> &amp; more.</p><ul><li>one</li><li>two</li></ul><img src="logo.png" alt="logo">' +
        '<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p></body></html>',
    });
    const { text } = await renderEmail(compiled, scope);
    expect(text).toBe(`HI ADA\n\nYour plan & more.\n\n * one\n * two\n\nUnsubscribe [${links.unsubscribeUrl}]`);
  });

  it('parses a template once however many recipients it is rendered for', async () => {
    const parse = jest.spyOn(Liquid.prototype, 'parse');
    try {
      const parts = { subject: `Parse-once {{ name }} ${Date.now()}`, body: `<p>Parse-once {{ email }} ${Math.random()}</p>` };
      for (let i = 0; i < 50; i += 1) {
        const rendered = await renderEmail(compileEmail(parts), buildScope({ email: `r${i}@example.com`, data: { name: `n${i}` } }));
        expect(rendered.html).toContain(`r${i}@example.com`);
      }
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('template syntax errors', () => {
  it('names the part at fault', () => {
    expect(syntaxErrorOf({ subject: 'Hi {{ name', body: 'ok' }).field).toBe('subject');
    expect(syntaxErrorOf({ subject: 'ok', body: '{% if name %}unclosed' }).field).toBe('body');
    expect(() => compileEmail({ subject: 'ok', body: '{% for x in items %}' })).toThrow(TemplateSyntaxError);
  });

  it('rejects an unknown filter and an unknown tag', () => {
    expect(syntaxErrorOf({ body: '{{ name | shout }}' }).message).toMatch(/shout/);
    expect(syntaxErrorOf({ body: '{% frobnicate %}' }).message).toMatch(/frobnicate/);
  });

  it('has no file access: include, render and layout do not exist', () => {
    for (const tag of ['include', 'render', 'layout']) {
      expect(syntaxErrorOf({ body: `{% ${tag} '/etc/passwd' %}` }).message).toMatch(tag);
    }
  });

  it('rejects a ?? without a value on each side or after a filter', () => {
    expect(syntaxErrorOf({ body: "{{ ?? 'x' }}" }).message).toMatch('??');
    expect(syntaxErrorOf({ body: '{{ name ?? }}' }).message).toMatch('??');
    expect(syntaxErrorOf({ body: "{{ name | upcase ?? 'x' }}" }).message).toMatch('before any filter');
  });

  it('accepts every SPEC form and checks only the parts given', () => {
    expect(() =>
      validateTemplate({
        subject: "Hi {{ first name ?? 'there' }}",
        body: "{{name}} {{ name ?? 'x' | capitalize }} {{profile.tier}} {{data['first name']}} {% if a %}{% endif %}",
      }),
    ).not.toThrow();
    expect(() => validateTemplate({})).not.toThrow();
  });
});

describe('render limits', () => {
  const renderError = async (source: string, variables = scope) => {
    const compiled = compileEmail({ subject: 'x', body: source });
    return renderEmail(compiled, variables).then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it('stops a render that runs too long', async () => {
    const started = Date.now();
    const error = await renderError('{% for i in (1..2000) %}{% for j in (1..2000) %}{{ i }}{% endfor %}{% endfor %}');
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as TemplateRenderError).field).toBe('body');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops a render that allocates too much', async () => {
    const error = await renderError('{% for i in (1..100000000) %}x{% endfor %}');
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as Error).message).toMatch(/limit/);
  });

  it('stops a render whose output grows without bound', async () => {
    const doubling = '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% capture s %}{{s}}{{s}}{% endcapture %}{% endfor %}{{ s }}';
    expect(await renderError(doubling)).toBeInstanceOf(TemplateRenderError);
    const big = buildScope({ email: 'a@example.com', data: { chunk: 'y'.repeat(1000) } });
    expect(await renderError('{% for i in (1..30000) %}{{ chunk }}{% endfor %}', big)).toBeInstanceOf(TemplateRenderError);
  });
});

describe('toLiquid', () => {
  it('leaves plain Liquid untouched', () => {
    const source = "<p>{{ name | default: 'x' }}</p>{% if a %}{{ items | join: ', ' }}{% endif %} { not a tag }";
    expect(toLiquid(source)).toBe(source);
  });

  it('rewrites the SPEC forms into Liquid', () => {
    expect(toLiquid("{{ a ?? 'x' | upcase }}")).toBe("{{ a | fallback: 'x' | upcase }}");
    expect(toLiquid('{{first name}}')).toBe("{{ data['first name'] }}");
    expect(toLiquid('{% assign x = "{{" %}{{ x ?? 2 }}')).toBe('{% assign x = "{{" %}{{ x | fallback: 2 }}');
    expect(toLiquid('{{ a | escape }}{{- b | escape_once -}}')).toBe('{{ a | escape | raw }}{{- b | escape_once | raw -}}');
  });
});
