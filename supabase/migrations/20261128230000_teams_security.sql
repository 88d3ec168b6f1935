-- Teams on Supabase (issue 49, docs/decisions/022-teams.md): what the hosted SPA may read itself, keyed on team
-- membership. Hand-written; applied after the generated migration "teams" that creates the tables. Every write
-- (creating a team, inviting, accepting, submitting, approving, paying) is the server's, connected as the tables'
-- owner. A person is their Clerk user id, the token's `sub` (see 20261123041500_likeness_security.sql).

-- ── 1. The caller's role in a team (null: not in it). Security definer, so a policy on team_members can ask
-- it without the policy recursing into itself; it answers only about the caller. In a schema of its own, so
-- PostgREST does not offer it as an RPC.
create schema if not exists likeness_private;
revoke all on schema likeness_private from public;
grant usage on schema likeness_private to authenticated;
create or replace function likeness_private.my_team_role(team uuid) returns text
  language sql stable security definer set search_path = public
as $$
  select m.role from public.team_members m join public.users u on u.id = m.user_id
  where m.team_id = team and u.clerk_id = (select auth.jwt() ->> 'sub')
$$;
revoke all on function likeness_private.my_team_role(uuid) from public;
grant execute on function likeness_private.my_team_role(uuid) to authenticated;

-- ── 2. teams: its members read it (its look, its due date, its balance); nobody else learns it exists ─────────
grant select on public.teams to authenticated;
drop policy if exists teams_select_member on public.teams;
create policy teams_select_member on public.teams for select to authenticated
  using (likeness_private.my_team_role(id) is not null);

-- ── 3. team_members: a member reads their own row; the team's owner and managers read every member's ────────
grant select on public.team_members to authenticated;
drop policy if exists team_members_select_own_or_lead on public.team_members;
create policy team_members_select_own_or_lead on public.team_members for select to authenticated
  using (
    user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub'))
    or likeness_private.my_team_role(team_id) in ('owner', 'manager')
  );

-- ── 4. team_invites and the team's ledger: leads only; a personal invite's token hash is never readable ─────
grant select (id, team_id, kind, token, email, name, title, domain, usage_limit, use_count, expires_at, revoked_at, used_at, created_at, sent_at)
  on public.team_invites to authenticated;
drop policy if exists team_invites_select_lead on public.team_invites;
create policy team_invites_select_lead on public.team_invites for select to authenticated
  using (likeness_private.my_team_role(team_id) in ('owner', 'manager'));

grant select on public.team_credit_ledger to authenticated;
drop policy if exists team_credit_ledger_select_lead on public.team_credit_ledger;
create policy team_credit_ledger_select_lead on public.team_credit_ledger for select to authenticated
  using (likeness_private.my_team_role(team_id) in ('owner', 'manager'));

-- ── 5. Team work: the team's leads read every member's team trainings, shoots and their photos (never
-- anything personal: only rows with the team's id); members read their own through the existing policies.
drop policy if exists lora_trainings_select_team_lead on public.lora_trainings;
create policy lora_trainings_select_team_lead on public.lora_trainings for select to authenticated
  using (team_id is not null and likeness_private.my_team_role(team_id) in ('owner', 'manager'));
drop policy if exists photo_shoots_select_team_lead on public.photo_shoots;
create policy photo_shoots_select_team_lead on public.photo_shoots for select to authenticated
  using (team_id is not null and likeness_private.my_team_role(team_id) in ('owner', 'manager'));
drop policy if exists generations_select_team_lead on public.generations;
create policy generations_select_team_lead on public.generations for select to authenticated
  using (
    shoot_id is not null and exists (
      select 1 from public.photo_shoots s
      where s.id = shoot_id and s.team_id is not null and likeness_private.my_team_role(s.team_id) in ('owner', 'manager')
    )
  );

-- ── 6. Realtime: a member's own membership row (its submission's status) reaches them live ─────────────────────
-- Only team_members, which has the member's user_id for the SPA's per-person filter; teams has none, and the SPA
-- subscribes to no table it cannot filter to the person's own rows (src/backend/hosted/supabase-live.ts).
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  if not (select puballtables from pg_publication where pubname = 'supabase_realtime') then
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'team_members') then
      alter publication supabase_realtime add table public.team_members;
    end if;
  end if;
end
$$;
