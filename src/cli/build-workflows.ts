/** `npm run build:workflows`: prebuilds the worker's workflow bundle, so that a production worker starts without bundling. */
import path from 'node:path';
import { WORKFLOW_BUNDLE_PATH, writeWorkflowBundle } from '../orchestration/workflow-bundle';

writeWorkflowBundle().then(
  (bytes) => console.log(`Wrote ${path.relative(process.cwd(), WORKFLOW_BUNDLE_PATH)} (${Math.round(bytes / 1024)} KB)`),
  (err: unknown) => {
    console.error(`Could not bundle the workflows: ${(err as Error).message}`);
    process.exit(1);
  },
);
