import { BillingLimitExceededError } from '../../src/billing/limits';
import { ApiError, rateLimited, validationError } from '../../src/http/errors';
import { replyForSendError } from '../../src/smtp-relay/relay-replies';

describe('replyForSendError: the SMTP reply for a refusal of the /v1/send path', () => {
  const code = (err: unknown) => replyForSendError(err).responseCode;

  it('answers validation refusals with 552 (attachments too big), 553 (sender) or 554, naming the fields', () => {
    expect(code(validationError([{ field: 'attachments', code: 'too_big', message: 'Attachments may total at most 10 MB' }]))).toBe(552);
    expect(code(validationError([{ field: 'from', code: 'invalid_string', message: 'from must be an email address' }]))).toBe(553);
    const other = replyForSendError(validationError([{ field: 'to[0]', code: 'invalid_string', message: 'Each recipient must be an email address' }]));
    expect(other.responseCode).toBe(554);
    expect(other.message).toContain('to[0]: Each recipient must be an email address');
  });

  it('answers an unverified sender domain 550 with its reason, and a disabled project 554', () => {
    const unverified = new ApiError(403, 'INTERNAL_SERVER_ERROR', 'The sender domain x.example is not verified for this project.', { details: { domain: 'x.example' } });
    expect(replyForSendError(unverified)).toMatchObject({ responseCode: 550, message: expect.stringContaining('x.example is not verified') });
    expect(code(new ApiError(403, 'PROJECT_DISABLED', 'This project is disabled'))).toBe(554);
  });

  it('answers limits that pass with temporary replies: billing cap 452, rate limit and unavailable sending 451', () => {
    const now = new Date();
    const usage = { category: 'emails', limit: 10, used: 10, remaining: 0, period: { start: now, end: now } };
    expect(code(new BillingLimitExceededError(usage as never, 1))).toBe(452);
    expect(code(rateLimited('Rate limit of 5 requests per minute exceeded', 30, 'wait'))).toBe(451);
    expect(code(new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly'))).toBe(451);
    expect(code(new Error('connection terminated'))).toBe(451);
  });
});
