-- The credits page on Supabase (issue 50, docs/decisions/023-credits-page.md): a person reads their own credit
-- ledger lines, newest first, filtered by kind. Hand-written; applied after the generated "credits" migration.
-- Every write stays the server's (connected as the table's owner): credits move only with the action that pays.
-- The top-up purchases and promo codes tables keep row-level security with no grant: closed to every client.
-- A person is their Clerk user id, the token's `sub` (see 20261123041500_likeness_security.sql).
-- Served by credit_ledger_user_history_idx and credit_ledger_user_entry_created_idx.
grant select (id, user_id, delta, kind, reason, balance_after, created_at, entry) on public.credit_ledger to authenticated;

drop policy if exists credit_ledger_select_own on public.credit_ledger;
create policy credit_ledger_select_own on public.credit_ledger for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub') and u.erased_at is null));
