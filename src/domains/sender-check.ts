import type { EntityManager } from 'typeorm';
import { ApiError } from '../http/errors';
import { hasVerifiedDomain } from './domains-queries';

/** The domain part of an address, lower-case. */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).trim().toLowerCase();
}

/** The domain and every parent domain of it: `a.b.example.com` -> `a.b.example.com`, `b.example.com`, `example.com`. */
function domainAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/** The domains that verify `from`: its domain and each parent domain of it. */
export function senderDomains(from: string): string[] {
  return domainAndParents(domainOf(from));
}

/** Whether the domain of `from` is a verified domain of the project or a subdomain of one. */
export function isVerifiedSender(manager: EntityManager, projectId: string, from: string): Promise<boolean> {
  return hasVerifiedDomain(manager, projectId, senderDomains(from));
}

/**
 * The refusal (403, as SPEC "Errors" says) of a `from` address whose domain is neither a
 * verified domain of the project nor a subdomain of one.
 */
export function unverifiedSender(from: string): ApiError {
  const domain = domainOf(from);
  return new ApiError(
    403,
    'INTERNAL_SERVER_ERROR',
    `The sender domain ${domain} is not verified for this project. Add it with POST /domains and publish its DNS records to verify it.`,
    { details: { domain }, suggestion: `Verify ${domain} (or a parent domain) under /domains before sending from it.` },
  );
}

/** Refuses `from` with unverifiedSender's error unless the project may send from its domain. */
export async function assertVerifiedSender(manager: EntityManager, projectId: string, from: string): Promise<void> {
  if (!(await isVerifiedSender(manager, projectId, from))) throw unverifiedSender(from);
}
