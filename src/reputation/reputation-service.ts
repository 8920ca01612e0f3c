import type { DataSource } from 'typeorm';
import type { ProjectSuspension } from '../entities/project-suspension';
import { notFound } from '../http/errors';
import { logger } from '../logger';
import { forgetKeys } from '../projects/key-cache';
import * as queries from './reputation-queries';
import {
  BOUNCE_RATE,
  COMPLAINT_RATE,
  MINIMUM_SENT,
  rate,
  REPUTATION_WINDOW_DAYS,
  reputationStatus,
  suspensionReason,
  type ReputationStatus,
} from './thresholds';

/** How many suspensions the security state lists. */
const RECENT_SUSPENSIONS = 10;

/** What `GET .../security` answers: the project's rates, standing and latest suspensions. */
export interface SecurityState {
  status: ReputationStatus;
  disabled: boolean;
  disabledReason: string | null;
  window: { days: number; since: Date };
  sent: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  complaintRate: number;
  thresholds: {
    minimumSent: number;
    bounceRate: { warning: number; suspend: number };
    complaintRate: { warning: number; suspend: number };
  };
  suspensions: ReturnType<typeof suspensionView>[];
}

function suspensionView(suspension: ProjectSuspension) {
  const { id, reason, sent, bounced, complained, bounceRate, complaintRate, createdAt, liftedAt, liftedBy } = suspension;
  return { id, reason, sent, bounced, complained, bounceRate, complaintRate, createdAt, liftedAt, liftedBy };
}

const rates = (window: queries.ProjectWindow) => ({
  bounceRate: rate(window.bounced, window.sent),
  complaintRate: rate(window.complained, window.sent),
});

const windowText = (window: queries.ProjectWindow) =>
  window.restarted ? `since ${window.since.toISOString()}` : `over the last ${REPUTATION_WINDOW_DAYS} days`;

/**
 * Sender reputation: a project's bounce and complaint rates over the window, and automatic
 * suspension when a suspension threshold is reached (operators lift it: `SuspensionLifts`).
 */
export class ReputationService {
  constructor(private readonly dataSource: DataSource) {}

  /** The security state of a project the caller is a member of. */
  async state(projectId: string): Promise<SecurityState> {
    const window = await queries.projectWindow(this.dataSource.manager, projectId);
    if (!window) throw notFound('Project');
    const suspensions = await queries.recentSuspensions(this.dataSource.manager, projectId, RECENT_SUSPENSIONS);
    return {
      status: reputationStatus(window, window.disabled),
      disabled: window.disabled,
      disabledReason: window.disabledReason,
      window: { days: REPUTATION_WINDOW_DAYS, since: window.since },
      sent: window.sent,
      bounced: window.bounced,
      complained: window.complained,
      ...rates(window),
      thresholds: {
        minimumSent: MINIMUM_SENT,
        bounceRate: { ...BOUNCE_RATE },
        complaintRate: { ...COMPLAINT_RATE },
      },
      suspensions: suspensions.map(suspensionView),
    };
  }

  /**
   * Suspends the project when its rates reach a suspension threshold (with enough emails
   * sent) and it is not suspended yet. Called after a bounce or complaint was committed:
   * the rates then include it, and of events committed together the last one to check
   * sees them all. The project row lock and the re-check under it make concurrent checks
   * suspend once.
   */
  async evaluate(projectId: string): Promise<void> {
    const first = await queries.projectWindow(this.dataSource.manager, projectId);
    if (!first || first.disabled || !suspensionReason(first, windowText(first))) return;
    const suspension = await this.dataSource.transaction(async (manager) => {
      if ((await queries.lockProject(manager, projectId)) !== false) return undefined;
      const window = (await queries.projectWindow(manager, projectId))!;
      const reason = suspensionReason(window, windowText(window));
      return reason ? queries.suspendProject(manager, projectId, reason, window, rates(window)) : undefined;
    });
    if (!suspension) return;
    forgetKeys(this.dataSource);
    logger.warn({ projectId, suspension: suspensionView(suspension) }, 'project suspended for its bounce or complaint rate');
  }
}
