// What the browser suites share: one Chromium per file, signed-in pages that count dialogs, screenshots, axe-core.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach } from 'vitest';
import { launchChromium, requireChromium, SCREENSHOT_DIR } from './browser.js';
import { bearer, TOKENS } from './support.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Chromium for the calling test file: checked as the file is collected (a missing or broken
 * Chromium fails the suite with one line that says what to install; it never skips), launched by
 * the first test that opens a page, closed after the file; each test's contexts are closed after
 * it. Call at a test file's top level.
 */
export function browserPages(): {
  browser(): Promise<Browser>;
  open(token?: string, options?: { permissions?: string[] }): Promise<{ page: Page; context: BrowserContext; dialogs: string[] }>;
  track(context: BrowserContext): BrowserContext;
} {
  requireChromium();
  let launched: ReturnType<typeof launchChromium> | undefined;
  const contexts: BrowserContext[] = [];
  const browser = async (): Promise<Browser> => (await (launched ??= launchChromium())).browser;
  afterAll(async () => {
    await (await launched?.catch(() => undefined))?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  const track = (context: BrowserContext) => (contexts.push(context), context);
  return {
    browser,
    track,
    /** A page signed in as `token`, counting every dialog (an alert() would be an XSS). */
    async open(token: string = TOKENS.operator, options: { permissions?: string[] } = {}) {
      const context = track(
        await (await browser()).newContext({ extraHTTPHeaders: bearer(token), viewport: { width: 1280, height: 860 }, acceptDownloads: true }),
      );
      if (options.permissions) await context.grantPermissions(options.permissions);
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      return { page, context, dialogs };
    },
  };
}

/** A full-page screenshot into the screenshot folder. */
export const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

/** axe-core in the page: the serious and critical violations. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] }> };
      }
    ).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id} at ${v.targets.join(', ')}`);
}
