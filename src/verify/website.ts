import http from 'node:http';
import https from 'node:https';
import { isPublicAddress } from './private-addresses';

/** One way of reaching a domain's website. */
export interface WebsiteProbe {
  protocol: 'https' | 'http';
  port: number;
}

/** Where a website is looked for unless told otherwise: HTTPS on 443 and HTTP on 80. */
export const DEFAULT_WEBSITE_PROBES: WebsiteProbe[] = [
  { protocol: 'https', port: 443 },
  { protocol: 'http', port: 80 },
];

export interface WebsiteCheck {
  probes: WebsiteProbe[];
  timeoutMs: number;
  /** Whether loopback and private addresses may be contacted (tests); otherwise they count as no website. */
  allowPrivateAddresses: boolean;
}

/** Sends one HEAD request for `/` to `address` with the domain as Host (and TLS server name); resolves on any answer. */
function answers(domain: string, address: string, probe: WebsiteProbe, signal: AbortSignal): Promise<void> {
  const defaultPort = probe.protocol === 'https' ? 443 : 80;
  const transport = probe.protocol === 'https' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      {
        host: address,
        port: probe.port,
        method: 'HEAD',
        path: '/',
        headers: {
          host: probe.port === defaultPort ? domain : `${domain}:${probe.port}`,
          'user-agent': 'Herald email verification',
        },
        servername: domain,
        // Only whether something answers matters: a certificate problem still means there is a website.
        rejectUnauthorized: false,
        agent: false,
        signal,
      },
      (response) => {
        response.destroy();
        resolve();
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/**
 * Whether the domain answers HTTP on any probe at the first of its addresses that may be contacted;
 * the probes run at once and the check gives up after `timeoutMs`.
 */
export async function hasWebsite(domain: string, addresses: string[], check: WebsiteCheck): Promise<boolean> {
  const address = addresses.find((candidate) => check.allowPrivateAddresses || isPublicAddress(candidate));
  if (!address || check.probes.length === 0) return false;
  const done = new AbortController();
  const signal = AbortSignal.any([done.signal, AbortSignal.timeout(check.timeoutMs)]);
  try {
    await Promise.any(check.probes.map((probe) => answers(domain, address, probe, signal)));
    return true;
  } catch {
    return false;
  } finally {
    done.abort();
  }
}
