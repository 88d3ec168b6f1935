-- Written by hand (HAND_WRITTEN_MIGRATIONS in server/db/supabase-migrations.ts), applied after the migrations
-- that put tables in the realtime publication.
--
-- Realtime streams no DELETE. It cannot check a deleted row against row-level security (the row is gone), so
-- it sends every DELETE, carrying the row's primary key, to every subscriber of the table whose subscription
-- has no filter, whoever's row it was; a filtered subscription gets none (under the default replica identity
-- the filter's column is not in the old record). Supabase's guide, "Postgres Changes": "RLS policies are not
-- applied to DELETE statements" and "Delete events are not filterable". A browser chooses its own filter, so
-- only the server can stop that: Realtime asks wal2json for the actions the publication publishes
-- (realtime.list_changes: `bool_or(pubdelete)`), and with `publish = 'insert, update'` a DELETE is not decoded
-- for anyone.
--
-- What a person deletes is an update instead, which Realtime checks against row-level security for each
-- subscriber: a generation's status becomes DELETED, a character's deleted_at is set (both rows stay visible to
-- their owner only, see the select policies). The rows the server still removes for good — an erased account's,
-- generations past GENERATION_RETENTION_DAYS — leave without a word to any browser.
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  alter publication supabase_realtime set (publish = 'insert, update');
end
$$;
