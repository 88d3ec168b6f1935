CREATE INDEX "explore_gallery_image_url_idx" ON "explore_gallery" USING btree ("image_url");--> statement-breakpoint
CREATE INDEX "explore_gallery_filters_idx" ON "explore_gallery" USING btree ("gender","style","ethnicity","hair_color");--> statement-breakpoint
CREATE INDEX "generations_user_active_idx" ON "generations" USING btree ("user_id") WHERE "generations"."status" = 'ACTIVE';
