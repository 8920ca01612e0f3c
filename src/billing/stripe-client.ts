import Stripe from 'stripe';
import type { Config } from '../config';

const TIMEOUT_MS = 20_000;
const NETWORK_RETRIES = 2;

/** The Stripe client for the configured secret key (and API endpoint); undefined when billing is disabled. */
export function createStripeClient(config: Config): Stripe | undefined {
  if (!config.stripeSecretKey) return undefined;
  return new Stripe(config.stripeSecretKey, {
    timeout: TIMEOUT_MS,
    maxNetworkRetries: NETWORK_RETRIES,
    telemetry: false,
    appInfo: { name: 'Herald', version: config.version },
    ...config.stripeApi,
  });
}
