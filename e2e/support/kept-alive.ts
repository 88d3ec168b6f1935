import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Whether a kept-alive connection to `origin`, left idle for `idleMs`, still carries the next request. A browser's
 * or Playwright's pool reuses such a connection; a server that closed it meanwhile (Node's default keep-alive is
 * 5 s) resets the request sent on it as it closes.
 */
export async function keptAliveAfter(origin: string, idleMs: number): Promise<boolean> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const health = () =>
    new Promise<Socket>((resolve, reject) => {
      const req = request(`${origin}/api/health`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.socket as Socket));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    const first = await health();
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return (await health()) === first;
  } finally {
    agent.destroy();
  }
}
