// pnpm test: every package's tests (turbo, one package at a time, all packages even after a
// failure), then the closing count as CI prints it: `pnpm test: N passed, N failed (per package)`
// and `N passed, N failed`, from the JSON report each package's vitest writes into
// RESPIRE_TEST_REPORT_DIR (a temporary directory unless the caller, e.g. CI, sets one).
// Extra arguments go to turbo: `pnpm test -- --filter=@respire/queue`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const given = process.env.RESPIRE_TEST_REPORT_DIR;
const reportDir = given || mkdtempSync(join(tmpdir(), 'respire-test-reports-'));
const turboArgs = process.argv.slice(2);
if (turboArgs[0] === '--') turboArgs.shift(); // `pnpm test -- --filter=...`
const started = Date.now();
try {
  const turbo = spawnSync('pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=1', '--continue', ...turboArgs], {
    stdio: 'inherit',
    env: { ...process.env, RESPIRE_TEST_REPORT_DIR: reportDir },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`\npnpm test: the tests took ${seconds < 120 ? `${seconds} s` : `${(seconds / 60).toFixed(1)} min`}`);
  const count = spawnSync(process.execPath, [join(here, 'count-tests.mjs'), `pnpm test=${reportDir}`], { stdio: 'inherit' });
  process.exitCode = turbo.status !== 0 || count.status !== 0 ? 1 : 0;
} finally {
  if (!given) rmSync(reportDir, { recursive: true, force: true });
}
