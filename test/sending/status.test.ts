import type { EmailStatus } from '../../src/entities/email';
import { EMAIL_PROGRESS, nextStatus } from '../../src/sending/status';

describe('nextStatus', () => {
  it('moves an email forward along QUEUED < SENT < DELIVERED < OPENED < CLICKED < BOUNCED < COMPLAINED', () => {
    expect(EMAIL_PROGRESS).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED']);
    expect(nextStatus('SENT', 'DELIVERED')).toBe('DELIVERED');
    expect(nextStatus('DELIVERED', 'OPENED')).toBe('OPENED');
    expect(nextStatus('SENT', 'CLICKED')).toBe('CLICKED');
    expect(nextStatus('OPENED', 'BOUNCED')).toBe('BOUNCED');
    expect(nextStatus('BOUNCED', 'COMPLAINED')).toBe('COMPLAINED');
  });

  it('never moves an email back, so late events leave it where it is', () => {
    expect(nextStatus('OPENED', 'DELIVERED')).toBe('OPENED');
    expect(nextStatus('CLICKED', 'OPENED')).toBe('CLICKED');
    expect(nextStatus('COMPLAINED', 'BOUNCED')).toBe('COMPLAINED');
    expect(nextStatus('DELIVERED', 'DELIVERED')).toBe('DELIVERED');
  });

  it('fails an email only while its message has not left (QUEUED or SENT)', () => {
    expect(nextStatus('QUEUED', 'FAILED')).toBe('FAILED');
    expect(nextStatus('SENT', 'FAILED')).toBe('FAILED');
    expect(nextStatus('DELIVERED', 'FAILED')).toBe('DELIVERED');
    expect(nextStatus('BOUNCED', 'FAILED')).toBe('BOUNCED');
  });

  it('leaves FAILED, SUPPRESSED and SKIPPED emails untouched', () => {
    const settled: EmailStatus[] = ['FAILED', 'SUPPRESSED', 'SKIPPED'];
    for (const status of settled) {
      for (const reached of [...EMAIL_PROGRESS, 'FAILED' as const]) expect([status, reached, nextStatus(status, reached)]).toEqual([status, reached, status]);
    }
  });
});
