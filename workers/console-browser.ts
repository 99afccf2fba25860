/**
 * Debian's Chromium driven by playwright-core, for the console's browser tests and the demo's
 * screenshots. Never downloads a browser: it uses CHROME_PATH, or `chromium` on PATH, or nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** The Chromium executable to use, or undefined (with the reason) when there is none. */
export function findChromium(): { path?: string; reason?: string } {
  const configured = process.env.CHROME_PATH;
  if (configured)
    return existsSync(configured) ? { path: configured } : { reason: `CHROME_PATH=${configured} does not exist` };
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (found) return { path: found };
    } catch {
      // not on PATH
    }
  }
  return { reason: 'no Chromium found (set CHROME_PATH or install it: apt-get install -y chromium)' };
}

export interface ConsoleBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile that is deleted on close. */
export async function launchChromium(executablePath: string): Promise<ConsoleBrowser> {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1200, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
