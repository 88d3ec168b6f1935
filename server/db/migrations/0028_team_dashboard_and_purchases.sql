-- The lead's dashboard (issue 49, docs/decisions/029-team-dashboard-and-team-packs.md) reads each member's newest
-- team training and team shoot. With created_at in the team indexes, that is one step down the index per member,
-- newest first; without it, every member's rows were fetched and sorted (a sort per member: 500 of them for a
-- 500-member team). Same names, same partial condition: every query of the old (team_id, user_id) indexes keeps
-- using these.
DROP INDEX IF EXISTS "lora_trainings_team_user_idx";
--> statement-breakpoint
CREATE INDEX "lora_trainings_team_user_idx" ON "lora_trainings" USING btree ("team_id","user_id","created_at") WHERE "lora_trainings"."team_id" is not null;
--> statement-breakpoint
DROP INDEX IF EXISTS "photo_shoots_team_user_idx";
--> statement-breakpoint
CREATE INDEX "photo_shoots_team_user_idx" ON "photo_shoots" USING btree ("team_id","user_id","created_at") WHERE "photo_shoots"."team_id" is not null;
--> statement-breakpoint
-- A team's credit packs (issue 49 item 2) are orders like a person's: recorded once in top_up_purchases (user_id is
-- who paid), with the team whose ledger they were granted to. A refund or chargeback of one takes back what the team
-- has not spent, once, recorded on the same row (reversed_at, reversed_credits).
ALTER TABLE "top_up_purchases" ADD COLUMN "team_id" uuid;
--> statement-breakpoint
ALTER TABLE "top_up_purchases" ADD CONSTRAINT "top_up_purchases_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "top_up_purchases_team_idx" ON "top_up_purchases" USING btree ("team_id") WHERE "top_up_purchases"."team_id" is not null;
