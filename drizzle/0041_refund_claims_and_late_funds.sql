CREATE TYPE "public"."refund_claim_status" AS ENUM('awaiting_claim', 'claimed', 'expired');--> statement-breakpoint
ALTER TABLE "refunds" ALTER COLUMN "transfer_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ALTER COLUMN "destination" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ALTER COLUMN "source" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "late_base_units" numeric(78, 0) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "request_key" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "claim_status" "refund_claim_status";--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "claim_token_hash" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "claim_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_request_key_idx" ON "refunds" USING btree ("request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_claim_token_idx" ON "refunds" USING btree ("claim_token_hash");--> statement-breakpoint
CREATE INDEX "refunds_open_claims_idx" ON "refunds" USING btree ("claim_expires_at") WHERE "refunds"."claim_status" = 'awaiting_claim';