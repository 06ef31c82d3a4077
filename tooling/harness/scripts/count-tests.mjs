// Sums vitest JSON reports into CI's lines: one `<label>: N passed, N failed` per run, then the
// closing `N passed, N failed`. Arguments: `<label>=<report dir>` per run (a dir holds one JSON
// report per package). Exits 1 when a test failed, a suite failed to load, or no test ran. Names
// every failed test and suite, and every test that passed only on its retry (CI's `retry: 1`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let passed = 0;
let failed = 0;
let skipped = 0;
const named = [];
/** The first line of a failure message: enough to find it in the log above. */
const firstLine = (message) =>
  String(message ?? '')
    .split('\n')
    .find((line) => line.trim() !== '') ?? '';
for (const arg of process.argv.slice(2)) {
  const at = arg.lastIndexOf('=');
  const [label, dir] = [arg.slice(0, at), arg.slice(at + 1)];
  let runPassed = 0;
  let runFailed = 0;
  const packages = [];
  for (const file of existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : []) {
    const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const suites = report.testResults ?? [];
    const broken = suites.filter((suite) => suite.status === 'failed' && (suite.assertionResults ?? []).length === 0).length;
    for (const suite of suites) {
      const file = String(suite.name ?? '').replace(/^.*\/packages\//, 'packages/');
      if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0)
        named.push(`  ${label}: FAILED to load ${file}: ${firstLine(suite.message)}`);
      for (const test of suite.assertionResults ?? []) {
        const messages = test.failureMessages ?? [];
        if (test.status === 'failed') named.push(`  ${label}: FAILED ${file} > ${test.fullName}: ${firstLine(messages[0])}`);
        else if (test.status === 'passed' && messages.length > 0)
          named.push(`  ${label}: flaky, passed on retry ${file} > ${test.fullName}: ${firstLine(messages[0])}`);
      }
    }
    runPassed += report.numPassedTests ?? 0;
    runFailed += (report.numFailedTests ?? 0) + broken;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    packages.push(`${file.replace(/\.json$/, '')} ${report.numPassedTests}/${(report.numPassedTests ?? 0) + (report.numFailedTests ?? 0) + broken}`);
  }
  if (runPassed + runFailed === 0) runFailed += 1; // a run that executed nothing is a failure
  console.log(`${label}: ${runPassed} passed, ${runFailed} failed   (${packages.join(', ') || 'no reports'})`);
  passed += runPassed;
  failed += runFailed;
}
if (named.length > 0) console.log(named.join('\n'));
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
