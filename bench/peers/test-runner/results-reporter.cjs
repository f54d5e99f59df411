// Jest reporter: writes every test's [title, story name] and status to $TR_RESULTS (JSON),
// so run.sh can tell an expected failure (a story that throws on purpose) from a real one.
const fs = require('node:fs');
class ResultsReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.TR_RESULTS;
    if (!file) return;
    const tests = results.testResults.flatMap((suite) => [
      ...suite.testResults.map((t) => ({ title: t.ancestorTitles[0], name: t.ancestorTitles[1], status: t.status })),
      ...(suite.testExecError ? [{ suite: suite.testFilePath, status: 'suite-error', message: String(suite.testExecError.message) }] : []),
    ]);
    fs.writeFileSync(file, JSON.stringify({ success: results.success, tests }, null, 2));
  }
}
module.exports = ResultsReporter;
