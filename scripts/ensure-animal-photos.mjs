// The photo check's evaluation set reads photos of animals from Debian's Tux Paint stamps
// (bench/photo-eval/animals.ts); install them when they are missing (needs root, as on CI machines).
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

const STAMPS = '/usr/share/tuxpaint/stamps/animals';
if (!existsSync(STAMPS)) {
  if (process.getuid?.() !== 0) {
    console.error(`${STAMPS} is missing. Install it with: sudo apt-get install -y tuxpaint-stamps-default`);
    process.exit(1);
  }
  console.log('Installing Tux Paint’s stamps (photos of animals for the photo check’s tests)…');
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tuxpaint-stamps-default', {
    stdio: 'inherit',
  });
}
