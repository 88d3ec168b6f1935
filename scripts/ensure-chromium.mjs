// End-to-end tests drive Debian's Chromium.
import { ensureDebianPackages } from './apt.mjs';

ensureDebianPackages({
  path: '/usr/bin/chromium',
  packages: ['chromium', 'fonts-liberation'],
  why: 'Chromium for the end-to-end tests',
  recommends: true,
});
