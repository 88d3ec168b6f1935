// `npm run dev`: the API server (restarted on change) and Vite's hot-reloading dev server, which proxies /api.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bin, node, root } from './lib.mjs';

const envFile = join(root, '.env');
const env = { NODE_ENV: 'development', ...process.env };
const server = spawn(node, [...(existsSync(envFile) ? [`--env-file=${envFile}`] : []), '--import', 'tsx', '--watch', 'server/main.ts'], {
  stdio: 'inherit',
  cwd: root,
  env,
});
const vite = spawn(node, [bin('vite')], { stdio: 'inherit', cwd: root, env });
const stop = () => {
  server.kill('SIGTERM');
  vite.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', stop);
vite.on('exit', stop);
