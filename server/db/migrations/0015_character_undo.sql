ALTER TABLE "lora_trainings" ADD COLUMN "deleted_files" jsonb;--> statement-breakpoint
ALTER TABLE "lora_trainings" ADD COLUMN "files_removed_at" timestamp with time zone;--> statement-breakpoint
UPDATE "lora_trainings" SET "files_removed_at" = "deleted_at" WHERE "deleted_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "lora_trainings_files_to_remove_idx" ON "lora_trainings" USING btree ("deleted_at") WHERE "lora_trainings"."deleted_at" is not null and "lora_trainings"."files_removed_at" is null;
