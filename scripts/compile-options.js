/**
 * How Herald's TypeScript is compiled to JavaScript: the esbuild options shared by
 * `npm run build` (scripts/build.js) and the benches' worker (bench/support.ts), so that both
 * run code compiled the same way.
 */
'use strict';
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** esbuild's options for one file per module, as CommonJS for the Node versions Herald supports. */
module.exports.compileOptions = {
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  tsconfig: path.join(ROOT, 'tsconfig.json'),
  logLevel: 'warning',
};
