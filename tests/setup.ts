import '@testing-library/jest-dom/vitest';
import { configure } from '@testing-library/dom';

// findBy* and waitFor give up after 1 s by default, which a render on a 2-core machine running four test files
// at once can take; a real failure still fails, 5 s later.
configure({ asyncUtilTimeout: 5000 });
