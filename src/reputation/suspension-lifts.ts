import type { DataSource } from 'typeorm';
import { conflict, forbidden, notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import { logger } from '../logger';
import { roleIn } from '../projects/roles';
import { isOperator } from '../accounts/operators';
import * as queries from './reputation-queries';
import { ReputationService, type SecurityState } from './reputation-service';
import { forgetKeys } from '../projects/key-cache';

/**
 * Lifting a suspension, which only Herald's operators may do: an ADMIN_EMAILS account from a
 * session, or `npm run herald -- lift-suspension <projectId>`. A project's own members cannot.
 */
export class SuspensionLifts {
  private readonly reputation: ReputationService;

  constructor(
    private readonly dataSource: DataSource,
    /** ADMIN_EMAILS: the accounts that may lift a suspension from a session. */
    private readonly adminEmails: readonly string[],
  ) {
    this.reputation = new ReputationService(dataSource);
  }

  /** Lifts for a signed-in user: an operator lifts any project's; its members get 403 saying who can, anyone else 404. */
  async liftFor(user: { id: string; email: string; emailVerified: boolean }, projectId: string): Promise<SecurityState> {
    if (!isOperator(this.adminEmails, user)) {
      await roleIn(this.dataSource, projectId, user.id);
      throw forbidden(
        "A suspension is lifted by a Herald operator, not by the project's members: ask your operator to lift it " +
          `(an account listed in ADMIN_EMAILS, or \`npm run herald -- lift-suspension ${projectId}\` on the server) ` +
          'once the cause of the bounces or complaints is fixed.',
      );
    }
    return this.lift(projectId, user.id);
  }

  /**
   * Re-enables a suspended project and starts its rate window afresh; its open suspensions are marked
   * lifted by `liftedBy` (null from the command line). 404 for no such project, 409 when not suspended.
   */
  async lift(projectId: string, liftedBy: string | null): Promise<SecurityState> {
    if (!isUuid(projectId)) throw notFound('Project');
    await this.dataSource.transaction(async (manager) => {
      const disabled = await queries.lockProject(manager, projectId);
      if (disabled === undefined) throw notFound('Project');
      if (!disabled) throw conflict('The project is not suspended', 'NOT_SUSPENDED');
      await queries.liftSuspension(manager, projectId, liftedBy);
    });
    forgetKeys(this.dataSource);
    logger.info({ projectId, liftedBy }, 'project suspension lifted');
    return this.reputation.state(projectId);
  }
}
