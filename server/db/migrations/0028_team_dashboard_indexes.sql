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
