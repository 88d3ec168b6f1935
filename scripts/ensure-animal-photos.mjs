// The photo check's evaluation set reads photos of animals from Debian's Tux Paint stamps (bench/photo-eval/animals.ts).
import { ensureDebianPackages } from './apt.mjs';

ensureDebianPackages({
  path: '/usr/share/tuxpaint/stamps/animals',
  packages: ['tuxpaint-stamps-default'],
  why: 'Tux Paint’s stamps (photos of animals for the photo check’s tests)',
});
