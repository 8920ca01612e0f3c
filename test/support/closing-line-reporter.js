/**
 * Ends a Jest run with one plain line, `jest: N passed, N failed, N skipped`, that
 * tools reading a run's output can count (Jest's own summary says "N total" instead).
 * A suite that could not run at all counts as one failure. With HERALD_TEST_SUMMARY
 * set, the same line is also written to that file so a wrapper can repeat it last.
 */
const fs = require('node:fs');

class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `jest: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped`;
    process.stdout.write(`\n${line}\n`);
    if (process.env.HERALD_TEST_SUMMARY) fs.writeFileSync(process.env.HERALD_TEST_SUMMARY, `${line}\n`);
  }
}

module.exports = ClosingLineReporter;
