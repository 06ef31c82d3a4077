// Launching Debian's Chromium for the browser tests (checked once per suite), and where screenshots go.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (CI installs it); RESPIRE_CHROMIUM overrides the path. */
export const CHROMIUM = process.env.RESPIRE_CHROMIUM || '/usr/bin/chromium';

const INSTALL_HINT = "the dashboard's browser tests need it: apt-get install -y chromium (Debian), or set RESPIRE_CHROMIUM to a Chromium or Chrome binary";

/**
 * Checks once, as the browser suite is collected, that Chromium is there and runs
 * (`--version`); returns what it reports. Throws an error whose stack is its one-line message, so
 * a missing browser fails the suite with one line that says what to install, instead of failing
 * each of its tests with a stack trace (it never skips them).
 */
export function requireChromium(): string {
  let problem: string | undefined;
  if (!existsSync(CHROMIUM)) problem = `Chromium not found at ${CHROMIUM}`;
  else {
    const probe = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    const said = `${probe.stdout ?? ''}${probe.stderr ?? ''}`.trim().split('\n')[0] ?? '';
    if (probe.error || probe.status !== 0) {
      problem = `Chromium at ${CHROMIUM} does not run (--version: ${probe.error?.message ?? `exit ${probe.status ?? probe.signal}`}${said ? `, ${said}` : ''})`;
    } else return said;
  }
  const error = new Error(`${problem}: ${INSTALL_HINT}.`);
  error.stack = `Error: ${error.message}`;
  throw error;
}

/** Where screenshots go: the test report dir when CI sets one, else `test-output/` in the package. */
export const SCREENSHOT_DIR = resolve(process.env.RESPIRE_TEST_REPORT_DIR ?? join(import.meta.dirname, '..', 'test-output'), 'dashboard-screenshots');

/**
 * Launches headless Chromium with no background traffic (Playwright gives each launch a fresh
 * temporary profile: its own --user-data-dir). Call {@link requireChromium} first.
 */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}
