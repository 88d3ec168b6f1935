// Debian packages the tests need (Chromium, the animal photos), installed when missing (needs root, as on CI machines).
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

// Another apt-get (a second checkout's tests, the machine's own updates) may hold dpkg's lock: wait for it.
const APT = 'DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600';

/** Installs `packages` (with their recommended ones if `recommends`) unless `path` exists; without root, says how and exits. */
export function ensureDebianPackages({ path, packages, why, recommends = false }) {
  if (existsSync(path)) return;
  if (process.getuid?.() !== 0) {
    console.error(`${path} is missing. Install it with: sudo apt-get install -y ${packages.join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing ${why}…`);
  const install = [...(recommends ? [] : ['--no-install-recommends']), ...packages].join(' ');
  execSync(`${APT} update -qq && ${APT} install -y -qq ${install}`, { stdio: 'inherit' });
}
