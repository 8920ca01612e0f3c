import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { npmScriptNodeArgs } from '../support/npm-scripts';

const ROOT = path.resolve(__dirname, '../..');

/** Runs `npm run herald -- <args>` as an operator would (its built entry point), against the test database. */
function herald(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...npmScriptNodeArgs('herald'), ...args], { cwd: ROOT, env: process.env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

describe('npm run herald (operator commands)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
  });
  afterAll(() => dataSource?.destroy());

  /** A project suspended for its bounce rate, with its open suspension. */
  async function suspendedProject(): Promise<string> {
    const [{ id }] = await dataSource.query(
      `INSERT INTO projects (name, disabled, disabled_reason) VALUES ('Suspended', true, 'Suspended automatically: bounce rate') RETURNING id`,
    );
    await dataSource.query(
      `INSERT INTO project_suspensions (project_id, reason, sent, bounced, complained, bounce_rate, complaint_rate)
       VALUES ($1, 'Suspended automatically: bounce rate', 100, 10, 0, 0.1, 0)`,
      [id],
    );
    return id;
  }

  it('lift-suspension re-enables the project, starts its rate window afresh and records the lift', async () => {
    const projectId = await suspendedProject();

    const run = await herald('lift-suspension', projectId);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Lifted the suspension of project ${projectId}`);
    const [project] = await dataSource.query('SELECT disabled, disabled_reason, reputation_since FROM projects WHERE id = $1', [projectId]);
    expect(project).toMatchObject({ disabled: false, disabled_reason: null });
    expect(Date.now() - project.reputation_since.getTime()).toBeLessThan(60_000);
    const [suspension] = await dataSource.query('SELECT lifted_at, lifted_by FROM project_suspensions WHERE project_id = $1', [projectId]);
    expect(suspension).toEqual({ lifted_at: expect.any(Date), lifted_by: null });
  }, 60_000);

  it('refuses a project that is not suspended or does not exist with exit code 1 and a message, and bad usage with 2', async () => {
    const projectId = await suspendedProject();
    expect((await herald('lift-suspension', projectId)).code).toBe(0);

    const again = await herald('lift-suspension', projectId);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain('The project is not suspended');
    for (const unknown of [randomUUID(), 'not-a-project']) {
      const missing = await herald('lift-suspension', unknown);
      expect([unknown, missing.code, missing.stderr.trim()]).toEqual([unknown, 1, 'herald: Project not found']);
    }
    for (const args of [[], ['lift-suspension'], ['toString', 'x'], ['unsuspend', projectId]]) {
      const usage = await herald(...args);
      expect([args, usage.code]).toEqual([args, 2]);
      expect(usage.stderr).toContain('lift-suspension <projectId>');
    }
  }, 120_000);
});
