-- Photo shoots on Supabase: what the hosted SPA may read itself. Hand-written; applied after the
-- generated migration "photo_shoots" that creates the tables. Shoots are started and cancelled through the
-- server (they cost credits); every write here is the server's, connected as the tables' owner.
-- A person is their Clerk user id, the token's `sub` (see 20261123041500_likeness_security.sql).

-- ── 1. photo_packs and their prompts: the catalogue, public and read-only; hidden packs are not shown ─────
grant select on public.photo_packs to anon, authenticated;
drop policy if exists photo_packs_select_visible on public.photo_packs;
create policy photo_packs_select_visible on public.photo_packs for select to anon, authenticated
  using (hidden = false);

grant select on public.photo_pack_prompts to anon, authenticated;
drop policy if exists photo_pack_prompts_select_visible on public.photo_pack_prompts;
create policy photo_pack_prompts_select_visible on public.photo_pack_prompts for select to anon, authenticated
  using (exists (select 1 from public.photo_packs p where p.id = pack_id and p.hidden = false));

-- ── 2. photo_shoots and shoot_photos: read yours (and receive their changes through Realtime) ─────────────
-- Served by photo_shoots_user_created_idx and shoot_photos_shoot_position_key.
grant select on public.photo_shoots to authenticated;
drop policy if exists photo_shoots_select_own on public.photo_shoots;
create policy photo_shoots_select_own on public.photo_shoots for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')));

grant select on public.shoot_photos to authenticated;
drop policy if exists shoot_photos_select_own on public.shoot_photos;
create policy shoot_photos_select_own on public.shoot_photos for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')));

-- ── 3. Realtime: shoots, their photos, and generations (a favourite set in one tab shows in another) ──────
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  if not (select puballtables from pg_publication where pubname = 'supabase_realtime') then
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'photo_shoots') then
      alter publication supabase_realtime add table public.photo_shoots;
    end if;
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'shoot_photos') then
      alter publication supabase_realtime add table public.shoot_photos;
    end if;
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'generations') then
      alter publication supabase_realtime add table public.generations;
    end if;
  end if;
end
$$;
