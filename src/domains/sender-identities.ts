import { randomBytes } from 'node:crypto';
import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  PutEmailIdentityMailFromAttributesCommand,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
import type { Config } from '../config';
import type { DomainRecord } from '../entities/domain';
import { logger } from '../logger';
import { createSesClient } from '../mailer/ses';
import { mailFromDomain } from './records';

/**
 * Where a sender domain is registered and what proves it is the project's: on SES, the domain
 * identity and its DKIM CNAMEs; on other transports, a verification TXT that Herald checks itself.
 */
export interface SenderIdentities {
  /**
   * Registers the domain for the claim `claimId` (a domain row's id) and returns its identity
   * records to publish. Never takes over an identity another claim or anyone else made.
   */
  register(domain: string, claimId: string): Promise<DomainRecord[]>;
  /** Whether the provider itself has found the identity records (undefined: it does not say). */
  providerVerified(domain: string): Promise<boolean | undefined>;
  /** Unregisters the domain; one that is not registered is no error. */
  remove(domain: string): Promise<void>;
}

/** A failure of the identity provider (SES) the caller may retry. */
export class SenderIdentityError extends Error {}

/** SES has an identity for the domain that Herald did not create: it is left alone, and the domain refused. */
export class ForeignIdentityError extends Error {
  constructor(readonly domain: string) {
    super(`SES already has an identity for ${domain} that Herald did not create`);
  }
}

/** The tag on each SES identity Herald creates: the id of the domain claim it was created for. */
const CLAIM_TAG = 'herald-domain-claim';

const awsErrorName = (err: unknown) => (err as { name?: string }).name;

/**
 * SES v2 domain identities with Easy DKIM: three CNAMEs `<token>._domainkey.<domain>` ->
 * `<token>.dkim.amazonses.com`. Each identity is tagged with the claim it was created for.
 */
export class SesSenderIdentities implements SenderIdentities {
  constructor(private readonly client: SESv2Client) {}

  /**
   * Creates the identity. One SES already has is this claim's own when its tag says so (a retried
   * call); one left by a claim that is gone is deleted and created anew, so that its DKIM records,
   * perhaps still in DNS, prove nothing; one without Herald's tag is refused (ForeignIdentityError).
   */
  async register(domain: string, claimId: string): Promise<DomainRecord[]> {
    const tokens = await this.call('CreateEmailIdentity', async () => {
      try {
        return await this.create(domain, claimId);
      } catch (err) {
        if (awsErrorName(err) !== 'AlreadyExistsException') throw err;
        const existing = await this.client.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
        const claim = existing.Tags?.find((tag) => tag.Key === CLAIM_TAG)?.Value;
        if (claim === claimId) return existing.DkimAttributes?.Tokens;
        if (claim === undefined) throw new ForeignIdentityError(domain);
        logger.info({ domain, claimId, earlierClaim: claim }, 'Replacing the SES identity an earlier claim left');
        await this.client.send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
        return this.create(domain, claimId);
      }
    });
    if (!tokens?.length) throw new SenderIdentityError(`SES answered no DKIM tokens for ${domain}`);
    await this.useMailFromDomain(domain);
    return tokens.map((token) => ({
      type: 'CNAME',
      name: `${token}._domainkey.${domain}`,
      value: `${token}.dkim.amazonses.com`,
      status: 'PENDING',
    }));
  }

  async providerVerified(domain: string): Promise<boolean | undefined> {
    try {
      const identity = await this.client.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
      return identity.DkimAttributes?.Status === 'SUCCESS';
    } catch (err) {
      logger.warn({ err, domain }, 'Could not read the SES identity; deciding on DNS alone');
      return undefined;
    }
  }

  async remove(domain: string): Promise<void> {
    await this.call('DeleteEmailIdentity', async () => {
      try {
        await this.client.send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
      } catch (err) {
        if (awsErrorName(err) !== 'NotFoundException') throw err;
      }
    });
  }

  private async create(domain: string, claimId: string): Promise<string[] | undefined> {
    const created = await this.client.send(
      new CreateEmailIdentityCommand({ EmailIdentity: domain, Tags: [{ Key: CLAIM_TAG, Value: claimId }] }),
    );
    return created.DkimAttributes?.Tokens;
  }

  /**
   * Tells SES to use `mail.<domain>` as MAIL FROM, which its MX and SPF records serve. Not fatal:
   * until it is set, SES sends with its own MAIL FROM (amazonses.com) and mail still flows.
   */
  private async useMailFromDomain(domain: string): Promise<void> {
    try {
      await this.client.send(
        new PutEmailIdentityMailFromAttributesCommand({
          EmailIdentity: domain,
          MailFromDomain: mailFromDomain(domain),
          BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
        }),
      );
    } catch (err) {
      logger.warn({ err, domain }, 'Could not set the MAIL FROM domain at SES; SES keeps its default');
    }
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ForeignIdentityError) throw err;
      throw new SenderIdentityError(`SES ${operation} failed: ${awsErrorName(err) ?? 'Error'}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
}

/**
 * For transports without identities of their own (SMTP, outbox): ownership is proven by a TXT
 * record `_herald.<domain>` = `herald-verification=<random token>`, which Herald checks itself.
 */
export class TokenSenderIdentities implements SenderIdentities {
  async register(domain: string): Promise<DomainRecord[]> {
    const token = randomBytes(16).toString('hex');
    return [{ type: 'TXT', name: `_herald.${domain}`, value: `herald-verification=${token}`, status: 'PENDING' }];
  }

  async providerVerified(): Promise<undefined> {
    return undefined;
  }

  async remove(): Promise<void> {}
}

/** The sender identities of the configured transport. */
export function createSenderIdentities(config: Config): SenderIdentities {
  if (config.transport !== 'ses') return new TokenSenderIdentities();
  return new SesSenderIdentities(createSesClient({ region: config.sesRegion!, endpoint: config.sesEndpoint }));
}
