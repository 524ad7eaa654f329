// What a browser test needs: Debian's Chromium through playwright-core, the dashboard built from the
// current web/ sources into a folder, and where screenshots go.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...extraArgs],
  });
}

/** A 1440 × 1000 page whose script errors are printed. */
export async function openPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  return page;
}

/** What a browser test's beforeAll sets up: a scratch folder, the dashboard built into it, Chromium and a page. */
export interface DashboardFixture {
  /** The scratch folder (data directories go under it). */
  tmp: string;
  /** The built dashboard, for `uiDir`. */
  dist: string;
  browser: Browser;
  page: Page;
  /** Closes the browser and removes the scratch folder; stop the servers that use it first. */
  close(): Promise<void>;
}

export async function openDashboardFixture(prefix: string): Promise<DashboardFixture> {
  const tmp = mkdtempSync(path.join(tmpdir(), prefix));
  const dist = path.join(tmp, 'dist');
  await buildDashboard(dist);
  mkdirSync(SHOTS, { recursive: true });
  const browser = await launchChromium();
  const page = await openPage(browser);
  return {
    tmp,
    dist,
    browser,
    page,
    async close() {
      await browser.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
