// Sums vitest JSON reports (one per package) into CI's closing line `N passed, N failed`.
// Exits 1 when a test failed, when a suite failed to load, or when no test ran at all.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
let brokenSuites = 0;
const files = dir ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
for (const file of files) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  brokenSuites += (report.testResults ?? []).filter((suite) => suite.status === 'failed' && (suite.assertionResults ?? []).length === 0).length;
  console.log(`  ${file.replace(/\.json$/, '').padEnd(14)} ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
}
if (brokenSuites > 0) console.log(`${brokenSuites} test file(s) failed to load`);
console.log(`${passed} passed, ${failed + brokenSuites} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || brokenSuites > 0 || passed === 0 ? 1 : 0);
