import type { BrowserContext, Page } from '@playwright/test';

/**
 * Every Content-Security-Policy violation the pages of `context` report, as `securitypolicyviolation` events
 * (Chromium logs a blocked load on the console, but not every violation: a caught `new Function('')`, zod's
 * JIT probe, only fires the event). Each entry names the page, the directive and what was blocked.
 */
export async function recordCspViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding('__likenessCspViolation', ({ page }: { page: Page }, text: string) => {
    violations.push(`${page.url()}: ${text}`);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __likenessCspViolation?: (text: string) => void }).__likenessCspViolation;
      report?.(`${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'} at ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  return violations;
}
