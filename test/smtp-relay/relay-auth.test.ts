import { isLoopback, plainAuthAllowed } from '../../src/smtp-relay/relay-auth';

describe('plainAuthAllowed: whether AUTH PLAIN/LOGIN may go over a connection', () => {
  it('refuses a clear-text connection from another address unless SMTP_RELAY_ALLOW_INSECURE is set', () => {
    for (const remoteAddress of ['203.0.113.7', '::ffff:198.51.100.2', '2001:db8::1', '10.0.0.5', '192.0.2.2']) {
      expect(plainAuthAllowed({ secure: false, remoteAddress }, false)).toBe(false);
      expect(plainAuthAllowed({ secure: false, remoteAddress }, true)).toBe(true);
    }
  });

  it('allows any address once the connection is TLS', () => {
    expect(plainAuthAllowed({ secure: true, remoteAddress: '203.0.113.7' }, false)).toBe(true);
  });

  it('allows loopback in clear, in every form', () => {
    for (const remoteAddress of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopback(remoteAddress)).toBe(true);
      expect(plainAuthAllowed({ secure: false, remoteAddress }, false)).toBe(true);
    }
    expect(isLoopback('128.0.0.1')).toBe(false);
    expect(isLoopback('::2')).toBe(false);
  });
});
