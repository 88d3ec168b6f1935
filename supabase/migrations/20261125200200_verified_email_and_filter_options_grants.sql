-- Likeness on Supabase: grants and policies for migration 0005 (verified_email, explore_filter_options).
-- Hand-written (listed in HAND_WRITTEN_MIGRATIONS, server/db/supabase-migrations.ts); applied after the
-- generated file that adds the column and the view. Idempotent, like the security migration.

-- ── users.verified_email: the server's, never the browser's ──────────────────────────────────────────────
-- The address Clerk verified, kept by the server (session-token claims, Clerk's Backend API, user.updated).
-- Column privileges already leave it out: the security migration grants authenticated INSERT only on
-- (clerk_id, email, full_name, credits) and UPDATE only on (email, full_name, updated_at), so any insert or
-- update that names verified_email is refused (42501), also in an update of one's own row. Never grant
-- UPDATE or INSERT on the whole table: a table-wide grant would include this column. The insert policy also
-- insists on it being empty, so a default or trigger added later cannot carry a browser's value in.

drop policy if exists users_insert_own on public.users;
create policy users_insert_own on public.users for insert to authenticated
  with check (clerk_id = (select auth.jwt() ->> 'sub') and credits = 0 and verified_email is null);

-- ── explore_filter_options: four short lists for visitors and signed-in people ───────────────────────────
-- One row: the distinct gender, hair_color, ethnicity and style values of explore_gallery (a view that walks
-- each filter index, docs/decisions/011-verified-email.md). It runs with its owner's rights (not
-- security_invoker), so it shows these values without opening explore_gallery to anon. A view over a
-- DISTINCT-style query is not updatable: there is no write path, and only SELECT is granted.
grant select on public.explore_filter_options to anon, authenticated;
