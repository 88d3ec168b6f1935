import { runAdmin } from '../../server/admin/cli.ts';

/** Runs the operator command in-process and collects what it prints. */
export async function admin(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, { env: { LOG_LEVEL: 'silent', ...env }, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
