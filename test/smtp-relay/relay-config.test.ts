import { ConfigError, loadConfig } from '../../src/config';
import { DEVELOPMENT_RELAY_PORT, relayPort } from '../../src/smtp-relay/relay-start';

const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: '/tmp/herald-relay-config', ...env });

describe('SMTP_RELAY_* configuration', () => {
  it('runs the relay on SMTP_RELAY_PORT, on 2587 under npm start when unset, and nowhere when off', () => {
    expect(relayPort(config({ SMTP_RELAY_PORT: '2525' }))).toBe(2525);
    expect(relayPort(config({}))).toBeUndefined();
    expect(relayPort(config({}), DEVELOPMENT_RELAY_PORT)).toBe(2587);
    expect(relayPort(config({ SMTP_RELAY_PORT: 'off' }), DEVELOPMENT_RELAY_PORT)).toBeUndefined();
  });

  it('refuses a port that is not one, a certificate without its key, and an allow flag that is not a boolean', () => {
    expect(() => config({ SMTP_RELAY_PORT: 'smtp' })).toThrow(ConfigError);
    expect(() => config({ SMTP_RELAY_PORT: '70000' })).toThrow('SMTP_RELAY_PORT must be a port');
    expect(() => config({ SMTP_RELAY_TLS_CERT: '/etc/cert.pem' })).toThrow('must be set together');
    expect(() => config({ SMTP_RELAY_ALLOW_INSECURE: 'maybe' })).toThrow(ConfigError);
    expect(config({ SMTP_RELAY_TLS_CERT: 'cert.pem', SMTP_RELAY_TLS_KEY: 'key.pem', SMTP_RELAY_ALLOW_INSECURE: 'true' }).smtpRelay).toMatchObject({
      tls: { certFile: expect.stringMatching(/\/cert\.pem$/), keyFile: expect.stringMatching(/\/key\.pem$/) },
      allowInsecure: true,
    });
  });
});
