ALTER TABLE "lora_trainings" ADD COLUMN "photo_checks" jsonb;
