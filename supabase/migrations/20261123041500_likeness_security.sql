-- Likeness on Supabase: what the hosted SPA may read and write itself, under Clerk session tokens.
-- Hand-written (the other files here are generated from server/db/migrations by `npm run db:supabase`).
--
-- Supabase's PostgREST and Realtime run a client's query as the role in its token: `authenticated` for a
-- signed-in Clerk session (its session token carries "role": "authenticated"), `anon` without one. Every
-- other write — credits, payments, generations, trainings, uploads — is the server's, connected as the
-- tables' owner (DATABASE_URL), which row-level security does not restrict.
--
-- A person is their Clerk user id, the token's `sub`, compared with users.clerk_id as text. Never
-- auth.uid(): it casts `sub` to uuid and fails for Clerk ids. `(select auth.jwt() ->> 'sub')` is evaluated
-- once per statement (an InitPlan), not once per row.

-- ── 1. Deny by default, now and for what later migrations create ─────────────────────────────────────────
-- Supabase grants ALL on every table, sequence and function in `public` to anon and authenticated, and
-- EXECUTE on functions to PUBLIC. Take all of it back, then grant below exactly what the SPA needs.
revoke all on all tables in schema public from anon, authenticated;
revoke all on all sequences in schema public from anon, authenticated;
revoke all on all routines in schema public from public, anon, authenticated;
-- Objects created later by the role running migrations start closed too. (EXECUTE for PUBLIC is a global
-- default, which a per-schema rule cannot take away, hence the statement without `in schema`.)
alter default privileges in schema public revoke all on tables from anon, authenticated;
alter default privileges in schema public revoke all on sequences from anon, authenticated;
alter default privileges in schema public revoke all on routines from anon, authenticated;
alter default privileges revoke execute on routines from public;
-- Functions the server's schema keeps out of reach (the user_public_meta trigger) live in `private`.
revoke all on schema private from public, anon, authenticated;
revoke all on all routines in schema private from public, anon, authenticated;

-- Row-level security on every table (generated migrations switch it on for tables they add later).
do $$
declare
  t record;
begin
  for t in select tablename from pg_tables where schemaname = 'public' loop
    execute format('alter table public.%I enable row level security', t.tablename);
  end loop;
end
$$;

-- ── 2. users: read your row; create it with 0 credits; change your email and name ────────────────────────
-- Spec §4 user sync runs in the SPA: select by clerk_id, insert (clerk_id, email, full_name, credits 0) or
-- update (email, full_name, updated_at). Nothing else in the row is the client's to write: credits,
-- subscription and customer fields change only through the server. An erased account's row (erased_at set,
-- docs/decisions/005-account-erasure.md) is invisible and unchangeable: its last token can neither read it
-- nor bring it back (an insert of the same clerk_id conflicts). Served by the unique index users_clerk_id_key.
grant select on public.users to authenticated;
grant insert (clerk_id, email, full_name, credits) on public.users to authenticated;
grant update (email, full_name, updated_at) on public.users to authenticated;

drop policy if exists users_select_own on public.users;
create policy users_select_own on public.users for select to authenticated
  using (clerk_id = (select auth.jwt() ->> 'sub') and erased_at is null);

drop policy if exists users_insert_own on public.users;
create policy users_insert_own on public.users for insert to authenticated
  with check (clerk_id = (select auth.jwt() ->> 'sub') and credits = 0);

drop policy if exists users_update_own on public.users;
create policy users_update_own on public.users for update to authenticated
  using (clerk_id = (select auth.jwt() ->> 'sub') and erased_at is null)
  with check (clerk_id = (select auth.jwt() ->> 'sub') and erased_at is null);

-- ── 3. user_public_meta: read your live balance (and receive its changes through Realtime) ───────────────
-- The subquery reads users under its own policy: your row only. Served by the primary key (user_id).
grant select on public.user_public_meta to authenticated;

drop policy if exists user_public_meta_select_own on public.user_public_meta;
create policy user_public_meta_select_own on public.user_public_meta for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')));

-- ── 4. generations: read yours; mark favourites; soft-delete ─────────────────────────────────────────────
-- Only is_favorite and status are writable, only on your ACTIVE generations (so nothing is un-deleted),
-- and status only to ACTIVE (unchanged) or DELETED. Inserts are the server's (it charges for them).
-- Lists (user_id, status ACTIVE, newest first) are served by generations_user_active_created_idx.
grant select on public.generations to authenticated;
grant update (is_favorite, status) on public.generations to authenticated;

drop policy if exists generations_select_own on public.generations;
create policy generations_select_own on public.generations for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')));

drop policy if exists generations_update_own on public.generations;
create policy generations_update_own on public.generations for update to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')) and status = 'ACTIVE')
  with check (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')) and status in ('ACTIVE', 'DELETED'));

-- ── 5. lora_trainings: read yours (and receive their changes through Realtime) ───────────────────────────
-- Trainings are created by the server's submit-lora-training, which charges for them in the same step.
-- Served by lora_trainings_user_created_idx.
grant select on public.lora_trainings to authenticated;

drop policy if exists lora_trainings_select_own on public.lora_trainings;
create policy lora_trainings_select_own on public.lora_trainings for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')));

-- ── 6. explore_gallery: read-only for every signed-in person (product §6) ───────────────────────────────────
grant select on public.explore_gallery to authenticated;

drop policy if exists explore_gallery_select_signed_in on public.explore_gallery;
create policy explore_gallery_select_signed_in on public.explore_gallery for select to authenticated
  using (true);

-- Everything else — credit_ledger, payment_events, subscriptions, uploads, generation_jobs, rate_limits and
-- the built-in accounts' auth_* tables — has row-level security on, no policy and no grant: anon and
-- authenticated can neither read nor write it.

-- ── 7. Realtime: changes to balances and trainings, delivered under the policies above ───────────────────
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  if not (select puballtables from pg_publication where pubname = 'supabase_realtime') then
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'user_public_meta') then
      alter publication supabase_realtime add table public.user_public_meta;
    end if;
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'lora_trainings') then
      alter publication supabase_realtime add table public.lora_trainings;
    end if;
  end if;
end
$$;
