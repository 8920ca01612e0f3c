/**
 * `tsx bench/workflow-bundle.ts <path>`: bundles Herald's workflows into `<path>`, as
 * `npm run build:workflows` does for the Docker image, in a process of its own so that
 * bundling's memory is nobody's peak. The campaign bench's workers run that bundle, as
 * deployed workers (WORKFLOW_BUNDLE=prebuilt) do.
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFileSync } from 'node:fs';
import { WORKFLOWS_PATH } from '../src/orchestration/workflow-bundle';

async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: tsx bench/workflow-bundle.ts <path>');
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  writeFileSync(target, code);
}

main().catch((err) => {
  process.stderr.write(`workflow bundle: ${(err as Error).stack}\n`);
  process.exit(1);
});
