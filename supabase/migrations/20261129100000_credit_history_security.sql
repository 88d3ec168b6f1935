-- The credits page's history on Supabase (issue 50, docs/decisions/028-credit-days-and-hosted-history.md): the hosted
-- SPA lists a person's ledger lines, with their links, from the credit_history view (migration 0027), as the local
-- server does. Hand-written; applied after the generated "credit_spend_days" migration. Idempotent.
--
-- The view runs with the reader's rights (security_invoker), so the reader needs SELECT on every column it reads,
-- and the policies of each table apply as to a query of that table: a person sees their own lines and links only.
-- The idempotency key stays ungranted (a payment's or a promo code's key is not the person's to see): the view
-- works out links from subject_type and subject_id, which say only which of the person's own jobs, shoots,
-- photos or characters a line was for.
grant select (id, user_id, delta, kind, reason, balance_after, created_at, entry, subject_type, subject_id) on public.credit_ledger to authenticated;

-- A paid image call's line links to the image its job made: the job's id and generation id, of one's own jobs only.
-- Nothing else of a job (its input, provider, lease) is granted; writes stay the server's.
grant select (id, user_id, generation_id) on public.generation_jobs to authenticated;
drop policy if exists generation_jobs_select_own on public.generation_jobs;
create policy generation_jobs_select_own on public.generation_jobs for select to authenticated
  using (user_id = (select u.id from public.users u where u.clerk_id = (select auth.jwt() ->> 'sub')));

-- A view over the ledger and subqueries is not updatable: only SELECT is granted. Served by
-- credit_ledger_user_history_idx (all kinds) and credit_ledger_user_entry_created_idx (one kind), keyset pages.
grant select on public.credit_history to authenticated;

-- credit_ledger_days (the spend sums) keeps row-level security with no grant: the server reads it, no client.
