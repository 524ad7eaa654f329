// What a browser test needs: Debian's Chromium through playwright-core, the dashboard built from the
// current web/ sources into a folder, and where screenshots go.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';

export const CHROMIUM = '/usr/bin/chromium';
export const ROOT = path.resolve(import.meta.dirname, '..');
export const SHOTS = path.join(ROOT, 'artifacts', 'screenshots');
export const hasChromium = existsSync(CHROMIUM);

/** Builds web/ into `outDir`, so a test never runs against a stale web/dist. */
export async function buildDashboard(outDir: string): Promise<void> {
  await build({ configFile: path.join(ROOT, 'web', 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
}

/** Headless Chromium with the flags every browser test uses, plus `extraArgs`. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...extraArgs] });
}

/** A 1440 × 1000 page whose script errors are printed. */
export async function openPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  return page;
}
