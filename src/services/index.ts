import type { DataSource } from 'typeorm';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Mailer } from '../mailer/types';
import { AccountEmails } from './account-emails';
import { AuthService } from './auth-service';
import { MembersService } from './members-service';
import { ProjectsService } from './projects-service';

/** What the API needs from the outside world. */
export interface AppDeps {
  config: Config;
  dataSource: DataSource;
  mailer: Mailer;
  temporal: Client | undefined;
}

/** The services behind the routes, built once per app. */
export function createServices(deps: AppDeps) {
  const emails = new AccountEmails(deps.config, deps.mailer);
  return {
    auth: new AuthService(deps.dataSource, deps.config, emails),
    projects: new ProjectsService(deps.dataSource),
    members: new MembersService(deps.dataSource, emails),
  };
}

export type Services = ReturnType<typeof createServices>;
