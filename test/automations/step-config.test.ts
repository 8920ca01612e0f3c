import { parseStepConfig } from '../../src/automations/step-config';
import { STEP_TYPES } from '../../src/entities/workflow';
import { ApiError } from '../../src/http/errors';

const FIELDS = ['subject', 'body', 'from', 'fromName', 'replyTo', 'type', 'templateId', 'amount', 'unit', 'eventName', 'timeout', 'url', 'method', 'headers', 'data', 'subscribed', 'condition'];
const VALUES: unknown[] = [1, -1.5, true, [], ['x'], {}, { a: 1 }, null, '', ' ', 'x'.repeat(3000), 'https://example.com/hook'];

/** What a step config check does with one input: the config it stores, or the 422 it answers. */
function outcome(type: (typeof STEP_TYPES)[number], config: unknown): 'stored' | number {
  try {
    parseStepConfig(type, config);
    return 'stored';
  } catch (error) {
    if (error instanceof ApiError) return error.statusCode;
    throw error;
  }
}

describe('step config checks', () => {
  it.each(STEP_TYPES.map((type) => [type]))('answer every %s config field of any JSON type with a stored config or a 422, never a crash', (type) => {
    for (const field of FIELDS) {
      for (const value of VALUES) {
        const answer = outcome(type, { [field]: value });
        expect([field, value, answer === 'stored' || answer === 422]).toEqual([field, value, true]);
      }
    }
  });

  it('refuses a WEBHOOK method that is not a string, and a SEND_EMAIL from that is not one, with 422', () => {
    expect(outcome('WEBHOOK', { url: 'https://example.com/hook', method: 5 })).toBe(422);
    expect(outcome('SEND_EMAIL', { subject: 's', body: 'b', from: 5 })).toBe(422);
    expect(parseStepConfig('WEBHOOK', { url: 'https://example.com/hook', method: 'put' })).toEqual(expect.objectContaining({ method: 'PUT' }));
  });
});
