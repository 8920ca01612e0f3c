import { buildOpenApiDocument } from '../../src/openapi';
import { choiceIgnoringCase, notBlank, trimmedPattern } from '../../src/openapi/builders';
import { normaliseDomain } from '../../src/domains/records';
import { AddDomainBody } from '../../src/domains/domains-dtos';
import { dtoSchema } from '../../src/openapi/operations';

type Json = { [key: string]: unknown };

/** Every `pattern` keyword value in the document. */
function patternsOf(document: unknown): string[] {
  const found: string[] = [];
  JSON.stringify(document, (key, value: unknown) => {
    if (key === 'pattern' && typeof value === 'string') found.push(value);
    return value;
  });
  return found;
}

const matches = (pattern: string, value: string) => new RegExp(pattern, 'u').test(value);

describe('the request schemas of the OpenAPI document', () => {
  const document = buildOpenApiDocument({ version: 'test', serverUrl: 'http://localhost' }) as unknown as Json;

  it('writes every pattern as a regex that compiles in unicode mode, as JSON Schema validators read it', () => {
    const broken = patternsOf(document).filter((pattern) => {
      try {
        new RegExp(pattern, 'u');
        return false;
      } catch {
        return true;
      }
    });
    expect(broken).toEqual([]);
  });

  it('takes as not blank exactly what trim() leaves something of', () => {
    const { pattern } = notBlank();
    for (const value of ['a', ' a ', '\u00a0x', 'é']) expect(matches(pattern as string, value)).toBe(true);
    for (const value of ['', ' ', '\t\n\r', '\u00a0\u2028\ufeff\u3000']) expect(matches(pattern as string, value)).toBe(false);
  });

  it('takes a choice in any letter case with white space around it, as a trimmed and upper-cased parameter', () => {
    const { pattern } = choiceIgnoringCase(['RUNNING', 'FAILED']);
    for (const value of ['RUNNING', ' running ', 'Failed\n']) expect(matches(pattern as string, value)).toBe(true);
    for (const value of ['RUN', 'RUNNINGS', 'FAILED,RUNNING', '']) expect(matches(pattern as string, value)).toBe(false);
  });

  it('describes the domains POST /domains takes (the AddDomainBody DTO) as normaliseDomain does', () => {
    const schema = dtoSchema(AddDomainBody);
    expect((document.components as { schemas: Record<string, Json> }).schemas.AddDomainBody).toEqual(schema);
    const domain = (schema.properties as Record<string, { allOf: { pattern: string }[] }>).domain;
    const accepted = (value: string) => domain.allOf.every(({ pattern }) => matches(pattern, value));
    for (const value of ['example.com', ' News.Example.COM. ', 'a-b.c0m', 'x.y.z.io']) {
      expect([value, accepted(value)]).toEqual([value, normaliseDomain(value) !== undefined]);
    }
    for (const value of ['00', 'example', '1.2.3.4', '-a.com', 'a..com', 'a.com..', 'a_b.com', 'a.1x2']) {
      expect([value, accepted(value)]).toEqual([value, normaliseDomain(value) !== undefined]);
    }
  });

  it('reads white space around a value as trim() does', () => {
    expect(matches(trimmedPattern('a'), '\u2029 a \ufeff')).toBe(true);
    expect(matches(trimmedPattern('a'), '\u0085a')).toBe(false);
  });
});
