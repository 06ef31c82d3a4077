// Sums vitest JSON reports into CI's lines: one `<label>: N passed, N failed` per run, then the
// closing `N passed, N failed`. Arguments: `<label>=<report dir>` per run (a dir holds one JSON
// report per package). Exits 1 when a test failed, a suite failed to load, or no test ran.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const arg of process.argv.slice(2)) {
  const at = arg.lastIndexOf('=');
  const [label, dir] = [arg.slice(0, at), arg.slice(at + 1)];
  let runPassed = 0;
  let runFailed = 0;
  const packages = [];
  for (const file of existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : []) {
    const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const broken = (report.testResults ?? []).filter((suite) => suite.status === 'failed' && (suite.assertionResults ?? []).length === 0).length;
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
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
