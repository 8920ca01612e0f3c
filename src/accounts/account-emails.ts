import escapeHtml from 'escape-html';
import type { Config } from '../config';
import { logger } from '../logger';
import type { Mailer, OutgoingMessage } from '../mailer/types';

function message(config: Config, to: string, subject: string, lines: string[], link: string): OutgoingMessage {
  const text = [...lines, '', link].join('\n');
  const html = `${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`;
  return { from: config.mailFrom, to: [to], subject, html, text };
}

/** Composes and sends Herald's own account emails (verification, password reset, invites). */
export class AccountEmails {
  constructor(
    private readonly config: Config,
    private readonly mailer: Mailer,
  ) {}

  verification(to: string, token: string): Promise<void> {
    const link = `${this.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    return this.deliver(message(this.config, to, 'Verify your Herald email address', [
      'Confirm this address for your Herald account. The link is valid for 24 hours.',
    ], link));
  }

  passwordReset(to: string, token: string): Promise<void> {
    const link = `${this.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
    return this.deliver(message(this.config, to, 'Reset your Herald password', [
      'Someone asked to reset the password of your Herald account. The link is valid for 1 hour.',
      'If it was not you, ignore this email.',
    ], link));
  }

  /** Tells `to` they were added to a project, or invited to it until they sign up and verify the address. */
  invitation(to: string, projectName: string, added: boolean): Promise<void> {
    const link = `${this.config.publicUrl}/signup?email=${encodeURIComponent(to)}`;
    return this.deliver(message(this.config, to, `You were invited to ${projectName} on Herald`, added ? [
      `You were added to the project "${projectName}" on Herald.`,
    ] : [
      `You were invited to the project "${projectName}" on Herald.`,
      'Sign up (or sign in) with this address and verify it: you join the project once the address is verified.',
    ], link));
  }

  /** Sends one message; a delivery failure is logged, never shown to the requester. */
  private async deliver(outgoing: OutgoingMessage): Promise<void> {
    try {
      await this.mailer.send(outgoing);
    } catch (err) {
      logger.error({ err, to: outgoing.to, subject: outgoing.subject }, 'account email not delivered');
    }
  }
}
