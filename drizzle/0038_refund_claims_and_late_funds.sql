ALTER TABLE "refunds" ADD COLUMN "request_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_request_key_idx" ON "refunds" USING btree ("request_key");