// Lint that guards what tests cannot easily see: workflow code that reaches for I/O
// (the workflow sandbox already makes Date, Math.random and timers deterministic) and
// promises that are neither awaited nor handled.
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['fs', 'path', 'os', 'crypto', 'http', 'https', 'net', 'dns', 'child_process', 'stream', 'timers', 'url', 'worker_threads', 'dgram', 'zlib'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', '.data/**', 'dist/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...nodeBuiltins.map((name) => `node:${name}`)].map((name) => ({
            name,
            message: 'Workflow code must be deterministic: no Node built-ins (use activities).',
            allowTypeImports: true,
          })),
          patterns: [
            {
              group: ['typeorm', 'typeorm/*', 'pg', '@aws-sdk/*', 'nodemailer', 'express', '../src/**'],
              message: 'Workflow code must not touch the database or the network; import activities only as types.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
