import { defineConfig } from 'drizzle-kit';

// Generates SQL migrations from the schema; never point it at a data folder the server has open.
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/schema.ts',
  out: './server/db/migrations',
});
