-- Where a running training is (issue 54 item 6): the trainer's stage, queue position and step count, with the
-- first step seen and when, so the step rate (and the time left) is measured, not assumed. Written by the
-- training runner while the row is IN_PROGRESS; the SPA reads it with the row (local API and hosted reads alike).
ALTER TABLE "lora_trainings" ADD COLUMN "progress" jsonb;
