-- Written by hand (HAND_WRITTEN_MIGRATIONS in server/db/supabase-migrations.ts), applied after the tables it names.
-- Realtime for `generations`: a favourite or a deletion made in one tab (or a new image made by the server)
-- reaches the person's other tabs, as a signal to refetch through PostgREST (decision 010). Delivery follows the
-- row-level security of the security migration: each person hears of their own rows only.
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  if not (select puballtables from pg_publication where pubname = 'supabase_realtime') then
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'generations') then
      alter publication supabase_realtime add table public.generations;
    end if;
  end if;
end
$$;
