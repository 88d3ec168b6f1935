-- Likeness on Supabase: grants for migration 0020 (shoot_photo_views, the one shoot view of both modes).
-- Hand-written (listed in HAND_WRITTEN_MIGRATIONS, server/db/supabase-migrations.ts); applied after the
-- generated file that creates the views. Idempotent, like the security migration.

-- ── shoot_photo_views: a person's shoot photos as the shoot page shows them ─────────────────────────────
-- The view runs with the reader's rights (security_invoker): the policies shoot_photos_select_own and
-- generations_select_own apply to it as to the tables, so a person reads their own photos and nobody else's.
-- A view over a join is not updatable: there is no write path, and only SELECT is granted.
grant select on public.shoot_photo_views to authenticated;

-- ── private.shoot_photo_queue: the queue positions shoot_photo_views shows ───────────────────────────────
-- It counts every person's queued photos (with its owner's rights) and is read by the view as the reader,
-- who therefore needs the schema and this view. `private` is not a schema PostgREST serves (nor GraphQL), so
-- the only way a client reaches it is through shoot_photo_views, joined to their own photos. Nothing else in
-- `private` is granted: its functions keep no EXECUTE for clients (the security migration).
grant usage on schema private to authenticated;
grant select on private.shoot_photo_queue to authenticated;
