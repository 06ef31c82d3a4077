// Launching Debian's Chromium for the browser tests, and where screenshots go.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (CI installs it); RESPIRE_CHROMIUM overrides the path. */
export const CHROMIUM = process.env.RESPIRE_CHROMIUM || '/usr/bin/chromium';

/** Where screenshots go: the test report dir when CI sets one, else `test-output/` in the package. */
export const SCREENSHOT_DIR = resolve(process.env.RESPIRE_TEST_REPORT_DIR ?? join(import.meta.dirname, '..', 'test-output'), 'dashboard-screenshots');

/**
 * Launches headless Chromium with no background traffic (Playwright gives each launch a fresh
 * temporary profile: its own --user-data-dir). A missing browser
 * fails the suite (never skips it) with the install hint.
 */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: the browser tests need it. Install it with: apt-get install -y chromium (or set RESPIRE_CHROMIUM to a Chromium binary).`,
    );
  }
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
